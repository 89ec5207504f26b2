// SQL Server errors as readpast records them: number, severity, state, line and message, with
// every earlier error of the same batch and the informational messages in the detail.
import { SchemaVersionError, TaskError } from '../../lib/engine/errors';
import { SCHEMA_HEAD } from './schema';
import { HOT_BARE_NAMES } from './sql/hot';

/** What the driver tells us about one server message (RequestError fields or an `info` event). */
export interface ServerMessage {
  message: string;
  number: number | null;
  severity: number | null;
  state: number | null;
  lineNumber: number | null;
  procName: string | null;
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

/** Read a driver error (mssql RequestError / ConnectionError, tedious error) or an info message. */
export function serverMessage(e: unknown): ServerMessage {
  const o = (e ?? {}) as Record<string, unknown>;
  const message = typeof o.message === 'string' ? o.message : String(e);
  return {
    message,
    number: num(o.number),
    severity: num(o.class ?? o.severity),
    state: num(o.state),
    lineNumber: num(o.lineNumber),
    procName: typeof o.procName === 'string' && o.procName ? o.procName : null,
  };
}

/** `Msg 208, Level 16, State 1, Line 1` (as SSMS prints it) */
export function formatMessage(m: ServerMessage): string {
  const head = [
    m.number !== null ? `Msg ${m.number}` : null,
    m.severity !== null ? `Level ${m.severity}` : null,
    m.state !== null ? `State ${m.state}` : null,
    m.procName ? `Procedure ${m.procName}` : null,
    m.lineNumber !== null ? `Line ${m.lineNumber}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return head ? `${head}\n${m.message}` : m.message;
}

/** Errors no retry can fix: syntax, unknown column, wrong or missing procedure arguments, bad conversions. */
export const NON_RETRYABLE = new Set([102, 105, 156, 170, 201, 207, 245, 8114, 8115, 8144, 8145, 8146]);

/** Connection-level failures: the session is gone (dropped, killed, cut off). */
export const CONNECTION_CODES = new Set(['ESOCKET', 'ECONNCLOSED', 'ECONNRESET', 'ENOTOPEN', 'ENOCONN', 'ECLOSE']);

export function isConnectionError(e: unknown): boolean {
  const o = (e ?? {}) as { code?: unknown; name?: unknown; originalError?: { code?: unknown } };
  const codes = [o.code, o.originalError?.code].filter((c): c is string => typeof c === 'string');
  return codes.some((c) => CONNECTION_CODES.has(c)) || o.name === 'ConnectionError';
}

/** The error a failed sql or procedure task ends with: a TaskError carrying SQL Server's details. */
export class SqlServerError extends TaskError {
  override name = 'SqlServerError';
  readonly severity: number | null;
  readonly state: number | null;
  readonly lineNumber: number | null;
  readonly procName: string | null;

  constructor(primary: ServerMessage, others: ServerMessage[] = [], infos: ServerMessage[] = []) {
    super(primary.message || 'SQL Server reported an error', {
      number: primary.number,
      retryable: primary.number === null || !NON_RETRYABLE.has(primary.number),
    });
    this.severity = primary.severity;
    this.state = primary.state;
    this.lineNumber = primary.lineNumber;
    this.procName = primary.procName;
    // the detail ExecutionLog keeps (errorInfo() reads the stack)
    const parts = [formatMessage(primary)];
    for (const o of others) parts.push(formatMessage(o));
    if (infos.length) parts.push('Messages:\n' + infos.map((i) => i.message).join('\n'));
    this.stack = parts.join('\n\n').slice(0, 16000);
  }
}

/**
 * Build the task error from the errors of one batch: the first error is the cause (later ones are
 * usually consequences, e.g. 3621 "The statement has been terminated").
 */
export function batchError(errors: unknown[], infos: ServerMessage[] = []): SqlServerError {
  const all = errors.map(serverMessage);
  const [first, ...rest] = all;
  return new SqlServerError(
    first ?? { message: 'SQL Server reported an error', number: null, severity: null, state: null, lineNumber: null, procName: null },
    rest,
    infos,
  );
}

/** A request error (non-stream): the driver throws the last error and keeps earlier ones in precedingErrors. */
export function requestError(err: unknown, infos: ServerMessage[] = []): SqlServerError {
  const preceding = (err as { precedingErrors?: unknown[] })?.precedingErrors;
  return batchError(Array.isArray(preceding) && preceding.length ? [...preceding, err] : [err], infos);
}

/** The connection under a running task went away: fail the attempt with that (never lose it). */
export function connectionLost(err: unknown): TaskError {
  const m = serverMessage(err);
  return new TaskError(`connection to SQL Server lost while the task ran: ${m.message}`, { number: m.number, cause: err });
}

/**
 * Run a short write again when SQL Server chose it as a deadlock victim, or when a concurrent
 * writer created the same row first (duplicate key): the transaction was rolled back whole, so
 * running it again is safe. A dedup key taken meanwhile is found on the next run. 51004: enqueue's lock
 * on a dedup key was not granted (a deadlock among application locks): likewise rolled back whole.
 */
export async function retrying<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      const n = serverMessage(err).number;
      const transient = n === 1205 || n === 2601 || n === 2627 || n === 51004;
      if (!transient || i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, Math.round(5 * 2 ** i * (0.5 + Math.random()))));
    }
  }
}

/** The readpast schema is not in this database (commands that do not migrate first say what to do). */
export class SchemaMissingError extends Error {
  override readonly name = 'SchemaMissingError';
}

/**
 * Error 208 or 2812 on a readpast object ("Invalid object name 'readpast.Tasks'", "Could not find stored
 * procedure 'readpast.Claim_3f9a1c2e'": a schema older than this code) as SchemaMissingError; else null.
 */
export function schemaMissing(err: unknown): SchemaMissingError | null {
  const m = serverMessage(err);
  if ((m.number !== 208 && m.number !== 2812) || !/'readpast\./i.test(m.message)) return null;
  // a hot write of this code, named by its content (sql/hot.ts): installed by a migrate of this readpast
  const hot = m.number === 2812 ? HOT_BARE_NAMES.find((n) => m.message.includes(`readpast.${n}'`)) : undefined;
  if (hot) {
    return new SchemaMissingError(
      `this readpast (schema version ${SCHEMA_HEAD}) calls readpast.${hot}, which this database does not have: ` +
        'run `readpast migrate` with this readpast (it installs its procedures by content)',
    );
  }
  return new SchemaMissingError(
    `the readpast schema is missing or out of date in this database (${m.message.trim()}): run \`readpast migrate\` first`,
  );
}

/** The number REGISTER_WORKER (sql/workers.ts) throws when a hot procedure it records is not installed. */
export const CODE_MISSING_ERROR = 51901;

/**
 * REGISTER_WORKER's refusal as SchemaMissingError naming this code's procedures and both schema versions; else
 * null. Nothing was written: the worker does not start rather than call another body.
 */
export function codeMissing(err: unknown): SchemaMissingError | null {
  const m = serverMessage(err);
  if (m.number !== CODE_MISSING_ERROR) return null;
  const have = Number(/version (\d+)/.exec(m.message)?.[1] ?? 0);
  return new SchemaMissingError(
    `this readpast (schema version ${SCHEMA_HEAD}) calls ${HOT_BARE_NAMES.map((n) => `readpast.${n}`).join(', ')}, ` +
      `not all installed in this database (schema version ${have}): run \`readpast migrate\` with this readpast ` +
      '(it installs its procedures by content)',
  );
}

/** The number SCHEMA_GUARD (sql/migrations.ts) throws, its message carrying the schema's version. */
export const SCHEMA_GUARD_ERROR = 51900;

/** SCHEMA_GUARD's error as SchemaVersionError against the code's version; else null. */
export function schemaVersionMismatch(err: unknown, codeVersion: number): SchemaVersionError | null {
  const m = serverMessage(err);
  if (m.number !== SCHEMA_GUARD_ERROR) return null;
  const have = Number(/version (\d+)/.exec(m.message)?.[1] ?? 0);
  return new SchemaVersionError(have, codeVersion);
}
