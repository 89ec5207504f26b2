// Errors every surface maps the same way: ValidationError → 400, NotFoundError → 404,
// ConflictError → 409. Handlers throw TaskError / NonRetryableError to shape an attempt's outcome.

export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(field ? `${field}: ${message}` : message);
  }
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}

/**
 * A configuration readpast refuses to start with: an environment value out of its range, a database URL it
 * cannot use, a bind it will not make. The message names the variable. Command line: exit 2, as bad input.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** An error with a number, as SQL Server errors have; `retryable: false` sends the task straight to dead. */
export class TaskError extends Error {
  override name = 'TaskError';
  readonly number: number | null;
  readonly retryable: boolean;
  constructor(message: string, opts: { number?: number | null; retryable?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.number = opts.number ?? null;
    this.retryable = opts.retryable ?? true;
  }
}

/** Thrown by a handler for an error no retry can fix (bad payload, missing row): the task goes to dead at once. */
export class NonRetryableError extends TaskError {
  override name = 'NonRetryableError';
  constructor(message: string, opts: { number?: number | null; cause?: unknown } = {}) {
    super(message, { ...opts, retryable: false });
  }
}

/**
 * The database's schema is not the version this readpast was written for. Newer: a newer readpast migrated
 * it, and this one would fail on what changed (columns, collations) — it is refused at open, by every
 * entry. Older: a process that migrates brings it up to date; a command that does not says to run
 * `readpast migrate`.
 */
export class SchemaVersionError extends Error {
  override readonly name = 'SchemaVersionError';
  constructor(
    /** the newest migration recorded in the database */
    readonly schemaVersion: number,
    /** the newest migration this readpast has */
    readonly codeVersion: number,
  ) {
    super(
      schemaVersion > codeVersion
        ? `the database schema is at version ${schemaVersion}, newer than this readpast knows (version ${codeVersion}): ` +
            'a newer readpast migrated it; upgrade readpast here to that version (or a newer one)'
        : `the database schema is at version ${schemaVersion}, older than this readpast needs (version ${codeVersion}): ` +
            'run `readpast migrate`',
    );
  }
}

/**
 * At open: a schema newer than the code is refused; an older one is refused only where nothing migrates it
 * (`migrates: false`). `schemaVersion` is the newest migration recorded (0: none yet).
 */
export function checkSchemaVersion(schemaVersion: number, codeVersion: number, opts: { migrates: boolean }): void {
  if (schemaVersion > codeVersion || (schemaVersion < codeVersion && !opts.migrates)) {
    throw new SchemaVersionError(schemaVersion, codeVersion);
  }
}
