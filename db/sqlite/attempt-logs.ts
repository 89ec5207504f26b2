// Attempt output on SQLite: the worker's buffered log lines and progress, appended in one transaction per
// flush, fenced on the attempt owning its task (as finish), kept bounded per attempt; the reads of the
// task page and Running; the delete that goes with a task.
import { MAX_ATTEMPT_BYTES, MAX_ATTEMPT_LINES, lineBytes } from '../../lib/engine/attempt-output';
import type { AttemptOutputBatch, AttemptOutputView, OutputStream, ProgressReport, RunningView } from '../../lib/engine/types';
import { read, type Db, type Shared } from './connection';
import * as S from './sql/attempt-logs';
import { stmt } from './stmt';
import type { ReadModel, WorkerPort } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

interface HeadRow {
  last_seq: number;
  lines: number;
  bytes: number;
  dropped: number;
  percent: number | null;
  message: string | null;
  progress_at: number | null;
}

/** Append each attempt's output; false where the attempt no longer owns its task (nothing written). */
export async function appendAttemptOutput(shared: Shared, batch: AttemptOutputBatch[]): Promise<boolean[]> {
  if (batch.length === 0) return [];
  return shared.tx((_tally, now) => batch.map((b) => appendOne(shared.db, b, now)));
}

function appendOne(db: Db, b: AttemptOutputBatch, now: number): boolean {
  if (!stmt(db, S.OWNS_TASK).get(b.taskId, b.workerId, b.attempt, now)) return false;
  stmt(db, S.ENSURE_OUTPUT).run(b.taskId, b.attempt, now);
  const head = stmt(db, S.OUTPUT_HEAD).get(b.taskId, b.attempt) as HeadRow;
  let seq = head.last_seq;
  let bytes = 0;
  for (const l of b.lines) {
    const n = lineBytes(l.line);
    stmt(db, S.INSERT_LINE).run(b.taskId, b.attempt, ++seq, l.at.getTime(), l.stream, l.line, n);
    bytes += n;
  }
  stmt(db, S.ADVANCE_OUTPUT).run(seq, b.lines.length, bytes, b.dropped, now, b.taskId, b.attempt);
  if (b.progress) stmt(db, S.SET_PROGRESS).run(b.progress.percent, b.progress.message, b.progress.at.getTime(), b.taskId, b.attempt);
  if (head.lines + b.lines.length > MAX_ATTEMPT_LINES || head.bytes + bytes > MAX_ATTEMPT_BYTES) {
    const cut = stmt(db, S.TRIM_LINES).run(b.taskId, b.attempt, b.taskId, b.attempt, MAX_ATTEMPT_BYTES, MAX_ATTEMPT_LINES).changes;
    const kept = stmt(db, S.KEPT_TOTALS).get(b.taskId, b.attempt) as { n: number; b: number };
    stmt(db, S.SET_KEPT).run(kept.n, kept.b, cut, b.taskId, b.attempt);
  }
  return true;
}

/** Lines read at most per call (one attempt keeps no more). */
const READ_LIMIT = MAX_ATTEMPT_LINES;

const progressOf = (r: { percent: number | null; message: string | null; progress_at: number | null }): ProgressReport | null =>
  r.percent === null || r.progress_at === null ? null : { percent: r.percent, message: r.message, at: new Date(r.progress_at) };

export function attemptOutput(shared: Shared, token: string, attempt?: number, afterSeq = 0): Promise<AttemptOutputView | null> {
  return read(() => {
    const db = shared.db;
    const t = stmt(db, S.TASK_BY_TOKEN).get(token) as { id: number; attempts: number } | undefined;
    if (!t) return null;
    const n = attempt ?? t.attempts;
    const head = stmt(db, S.OUTPUT_HEAD).get(t.id, n) as HeadRow | undefined;
    const rows = head
      ? (stmt(db, S.LINES_AFTER).all(t.id, n, afterSeq, READ_LIMIT) as { seq: number; at: number; stream: OutputStream; line: string }[])
      : [];
    const dropped = head?.dropped ?? 0;
    return {
      attempt: n,
      lines: rows.map((r) => ({ seq: r.seq, at: new Date(r.at), stream: r.stream, line: r.line })),
      truncated: dropped > 0,
      dropped,
      progress: head ? progressOf(head) : null,
      next: rows.length ? rows[rows.length - 1]!.seq : afterSeq,
    };
  });
}

/** Running attempts with the progress they reported (Running's progress bar). */
export async function withProgress(shared: Shared, running: Promise<RunningView[]>): Promise<RunningView[]> {
  const rows = await running;
  if (rows.length === 0) return rows;
  const got = await read(
    () =>
      stmt(shared.db, S.RUNNING_PROGRESS).all() as {
        token: string;
        percent: number | null;
        message: string | null;
        progress_at: number | null;
      }[],
  );
  const byToken = new Map(got.map((r) => [r.token, progressOf(r)]));
  return rows.map((r) => ({ ...r, progress: byToken.get(r.token) ?? null }));
}

/** Delete a task's output (with the task: deleteTask, deleteFailed, prune); returns the lines deleted. */
export function deleteTaskOutput(db: Db, taskId: number): number {
  stmt(db, S.DELETE_TASK_OUTPUT).run(taskId);
  return stmt(db, S.DELETE_TASK_LINES).run(taskId).changes;
}

/** this module's part of the WorkerPort (store.ts binds it to the store's Shared: db/shared/bind.ts) */
export const workerSlice = { appendAttemptOutput } satisfies Slice<Shared, WorkerPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { attemptOutput } satisfies Slice<Shared, ReadModel>;
