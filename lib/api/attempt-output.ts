// An attempt's progress and log lines for the front door: `GET /api/tasks/{token}/logs?attempt=&after=`
// and Readpast.attemptOutput. The lines come from a handler's ctx.log and, on SQL Server, a sql or
// procedure task's PRINT / RAISERROR output and error messages (stream `print` / `error`).
import { NotFoundError, ValidationError } from '../engine/errors';
import type { ReadModel } from '../engine/ports';
import type { AttemptOutputView } from '../engine/types';
import { parseWith, token as tokenSchema } from '../engine/validation';

export interface AttemptOutputQuery {
  /** the attempt (default: the task's latest) */
  attempt?: number;
  /** only lines after this seq (the `next` of the previous read) */
  after?: number;
}

const MAX_INT = 2_147_483_647;

function intOption(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > MAX_INT) {
    throw new ValidationError(field, `must be an integer from ${min} to ${MAX_INT}`);
  }
  return n;
}

export function attemptOutputJson(v: AttemptOutputView) {
  return {
    attempt: v.attempt,
    lines: v.lines.map((l) => ({ seq: l.seq, at: l.at.toISOString(), stream: l.stream, line: l.line })),
    truncated: v.truncated,
    dropped: v.dropped,
    progress: v.progress ? { percent: v.progress.percent, message: v.progress.message, at: v.progress.at.toISOString() } : null,
    next: v.next,
  };
}

export type AttemptOutputJson = ReturnType<typeof attemptOutputJson>;

/** 400 `token` / `attempt` / `after` for malformed input, 404 for an unknown task. */
export async function attemptOutput(
  reads: Pick<ReadModel, 'attemptOutput'>,
  rawToken: unknown,
  query: { attempt?: unknown; after?: unknown } = {},
): Promise<AttemptOutputJson> {
  const token = parseWith(tokenSchema, rawToken, 'token').toLowerCase();
  const attempt = intOption(query.attempt, 'attempt', 1);
  const after = intOption(query.after, 'after', 0) ?? 0;
  const v = await reads.attemptOutput(token, attempt, after);
  if (!v) throw new NotFoundError(`no task with token ${token}`);
  return attemptOutputJson(v);
}
