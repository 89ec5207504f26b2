// Exit codes and the one-line messages the command line prints for each kind of failure.
import { ConfigError, ConflictError, NotFoundError, SchemaVersionError, ValidationError } from '../lib/engine/errors';

export const EXIT = {
  ok: 0,
  /** a failure at run time: the database is unreachable or its schema of another version, a bug */
  failure: 1,
  /**
   * bad input or a configuration readpast refuses: unknown flag, missing or malformed value, unknown handler,
   * bad token; an environment value out of range, a database URL it cannot use, a public bind without credentials
   */
  usage: 2,
  /** no task with that token, no batch with that id, no such queue */
  notFound: 3,
  /** the task or batch is in a state that does not allow the action */
  conflict: 4,
  /** `batch wait --timeout-s`: the time passed before the batch (or stage) was finished */
  timeout: 5,
  /** `doctor`: something this configuration needs is missing or failing (a ✗ line that is not marked optional) */
  doctor: 6,
} as const;

/** Bad arguments; `flag` names the offending flag or argument (e.g. `--priority`, `TOKEN`). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    readonly flag: string | null,
    message: string,
  ) {
    super(flag ? `${flag}: ${message}` : message);
  }
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError || err instanceof ValidationError || err instanceof ConfigError) return EXIT.usage;
  if (err instanceof NotFoundError) return EXIT.notFound;
  if (err instanceof ConflictError) return EXIT.conflict;
  return EXIT.failure;
}

/** One line, whatever the error carried. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The message printed on stderr for an error, prefixed with the command that failed. */
export function errorLine(command: string | null, err: unknown): string {
  const prefix = command ? `readpast ${command}: ` : 'readpast: ';
  const known =
    err instanceof UsageError ||
    err instanceof ValidationError ||
    err instanceof NotFoundError ||
    err instanceof ConflictError ||
    err instanceof ConfigError ||
    err instanceof SchemaVersionError;
  const message = err instanceof Error ? err.message || err.name : String(err);
  return prefix + oneLine(known ? message : `error: ${message}`);
}
