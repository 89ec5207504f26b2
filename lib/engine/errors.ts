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
