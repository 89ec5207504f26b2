// Attempt output on SQL Server: the worker's buffered log lines and progress (one fenced, bounded batch per
// flush, sql/attempt-logs.ts), the reads of the task page and Running, and the capture of a sql or
// procedure task's server messages as they arrive — PRINT and RAISERROR of severity ≤ 10 (the driver's
// `info` events, sent at once WITH NOWAIT) as `print` lines, error messages (severity ≥ 11) as `error` lines.
import { lineBytes } from '../../lib/engine/attempt-output';
import type {
  AttemptLogLine,
  AttemptOutputBatch,
  AttemptOutputView,
  OutputStream,
  ProgressReport,
  RunningView,
} from '../../lib/engine/types';
import { sql, type Shared } from './connection';
import { formatMessage, serverMessage } from './errors';
import { isoUtc, token, UUID, type Id } from './rows';
import * as S from './sql/attempt-logs';
import type { ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

/** Append each attempt's output; false where the attempt no longer owns its task (nothing written). */
export async function appendAttemptOutput(shared: Shared, batch: AttemptOutputBatch[]): Promise<boolean[]> {
  if (batch.length === 0) return [];
  const heads = batch.map((b, ord) => ({
    ord,
    taskId: b.taskId,
    workerId: b.workerId,
    attempt: b.attempt,
    dropped: b.dropped,
    percent: b.progress?.percent ?? null,
    message: b.progress?.message ?? null,
    progressAt: b.progress ? isoUtc(b.progress.at) : null,
  }));
  const lines = batch.flatMap((b, ord) =>
    b.lines.map((l, i) => ({ ord, i, at: isoUtc(l.at), stream: l.stream, line: l.line, bytes: lineBytes(l.line) })),
  );
  const r = await shared.write<{ ord: number; ok: number }>(S.APPEND_OUTPUT, [
    ['batch', sql.NVarChar(sql.MAX), JSON.stringify(heads)],
    ['lines', sql.NVarChar(sql.MAX), JSON.stringify(lines)],
  ]);
  const ok = new Array<boolean>(batch.length).fill(false);
  for (const row of r.recordset ?? []) ok[row.ord] = row.ok === 1;
  return ok;
}

interface HeadRow {
  task_id: Id;
  attempt: number;
  has_output: number;
  dropped: number;
  pct: number | string | null;
  message: string | null;
  progress_at: Date | null;
}

const progressOf = (r: { pct: number | string | null; message: string | null; progress_at: Date | null }): ProgressReport | null =>
  r.pct === null || r.progress_at === null ? null : { percent: Number(r.pct), message: r.message, at: r.progress_at };

export async function attemptOutput(shared: Shared, t: string, attempt?: number, afterSeq = 0): Promise<AttemptOutputView | null> {
  if (!UUID.test(t)) return null;
  const r = await shared.query(S.ATTEMPT_OUTPUT, [
    ['token', sql.UniqueIdentifier, t],
    ['attempt', sql.Int, attempt ?? null],
    ['after_seq', sql.Int, afterSeq],
  ]);
  const sets = r.recordsets as unknown as [HeadRow[], { seq: number; at: Date; stream: OutputStream; line: string }[]];
  const head = sets[0]?.[0];
  if (!head || head.task_id === null) return null;
  const lines: AttemptLogLine[] = (sets[1] ?? []).map((l) => ({ seq: l.seq, at: l.at, stream: l.stream, line: l.line }));
  return {
    attempt: head.attempt,
    lines,
    truncated: head.dropped > 0,
    dropped: head.dropped,
    progress: head.has_output ? progressOf(head) : null,
    next: lines.length ? lines[lines.length - 1]!.seq : afterSeq,
  };
}

/** Running attempts with the progress they reported (Running's progress bar): one read for the list. */
export async function withProgress(shared: Shared, rows: Promise<RunningView[]>): Promise<RunningView[]> {
  const list = await rows;
  if (list.length === 0) return list;
  const found = (
    await shared.query<{ token: string; pct: number | string | null; message: string | null; progress_at: Date | null }>(
      S.RUNNING_PROGRESS,
      [['tokens', sql.NVarChar(sql.MAX), JSON.stringify(list.map((r) => r.token))]],
    )
  ).recordset;
  const by = new Map(found.map((f) => [token(f.token), progressOf(f)]));
  return list.map((r) => ({ ...r, progress: by.get(r.token) ?? null }));
}

// ---- server messages of a running sql / procedure task ------------------------------------------

/** What the capture listens on: an mssql Request (or a fake in tests). */
export interface MessageSource {
  on(event: 'info' | 'error', listener: (m: unknown) => void): unknown;
  removeListener(event: 'info' | 'error', listener: (m: unknown) => void): unknown;
}

/** An info message as a `print` line: PRINT and RAISERROR ≤ 10 text as written (SSMS's Messages tab shows no header). */
export function printLine(m: unknown): string {
  return serverMessage(m).message;
}

/** An error message as an `error` line: `Msg 50000, Level 16, State 1, Line 3` and the text. */
export function errorLine(e: unknown): string {
  return formatMessage(serverMessage(e)).replace('\n', ': ');
}

/**
 * Forward a request's server messages to an attempt's output as they arrive: `info` events as `print`
 * lines (an info of severity ≥ 11 is an error), `error` events (stream mode: each error as it comes) as
 * `error` lines. Returns the detach function.
 */
export function captureMessages(req: MessageSource, output: ((stream: OutputStream, line: string) => void) | undefined): () => void {
  if (!output) return () => {};
  const onInfo = (m: unknown) => {
    const sev = serverMessage(m).severity;
    output(sev !== null && sev >= 11 ? 'error' : 'print', sev !== null && sev >= 11 ? errorLine(m) : printLine(m));
  };
  const onError = (e: unknown) => output('error', errorLine(e));
  req.on('info', onInfo);
  req.on('error', onError);
  return () => {
    req.removeListener('info', onInfo);
    req.removeListener('error', onError);
  };
}

/**
 * A non-stream request (a procedure's RPC) collects its errors and rejects with the last, the earlier ones
 * in `precedingErrors`: each becomes an `error` line, in the order the server sent them.
 */
export function recordFailure(err: unknown, output: ((stream: OutputStream, line: string) => void) | undefined): void {
  if (!output) return;
  const preceding = (err as { precedingErrors?: unknown })?.precedingErrors;
  for (const e of Array.isArray(preceding) ? preceding : []) output('error', errorLine(e));
  output('error', errorLine(err));
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { attemptOutput } satisfies Slice<Shared, ReadModel>;
