// What operators do to tasks: cancel, retry, delete (one or all matching a failure filter), and the
// pruning of old finished tasks. Every status change goes through the tally.
import type { CancelResult, DeleteResult, RetryResult } from '../../lib/engine/store';
import type { FailureFilter, PruneResult } from '../../lib/engine/types';
import type { Db } from './connection';
import { stmt, type Tally, type TaskKey } from './tally';
import { failureWhere } from './views';

type Row = TaskKey & { id: number; status: string };

const byToken = (db: Db, token: string) =>
  stmt(db, 'SELECT id, queue, batch_id, stage, status FROM Tasks WHERE token = ?').get(token) as Row | undefined;

export function cancel(db: Db, token: string, tally: Tally, now: number): CancelResult {
  const t = byToken(db, token);
  if (!t) return 'not_found';
  if (t.status === 'pending') {
    stmt(db, "UPDATE Tasks SET status = 'cancelled', finished_at = ? WHERE id = ?").run(now, t.id);
    tally.task(t, 'pending', 'cancelled');
    return 'cancelled';
  }
  if (t.status === 'running') {
    stmt(db, 'UPDATE Tasks SET cancel_requested = 1 WHERE id = ?').run(t.id);
    return 'cancel_requested';
  }
  return 'conflict';
}

/** dead/cancelled → pending with one more attempt if exhausted; skipped where a live task holds the dedup key */
function retryWhere(db: Db, where: string, params: unknown[], now: number): (TaskKey & { prior: string })[] {
  const rows = stmt(db, `SELECT id, queue, batch_id, stage, status AS prior FROM Tasks WHERE ${where}
      AND (dedup_key IS NULL OR NOT EXISTS (SELECT 1 FROM Tasks o WHERE o.dedup_key = Tasks.dedup_key
        AND o.dedup_key IS NOT NULL AND o.status IN ('pending', 'running')))`).all(...params) as (TaskKey & { id: number; prior: string })[];
  const upd = stmt(db, `UPDATE Tasks SET status = 'pending', run_after = ?, finished_at = NULL, cancel_requested = 0,
      max_attempts = MAX(max_attempts, attempts + 1) WHERE id = ?`);
  for (const r of rows) upd.run(now, r.id);
  return rows;
}

export function retry(db: Db, token: string, tally: Tally, now: number): RetryResult {
  const t = byToken(db, token);
  if (!t) return 'not_found';
  if (t.status !== 'dead' && t.status !== 'cancelled') return 'conflict';
  if (t.batch_id !== null) {
    const b = stmt(db, 'SELECT status FROM Batches WHERE id = ?').get(t.batch_id) as { status: string } | undefined;
    if (b && (b.status === 'completed' || b.status === 'cancelled')) return 'conflict';
  }
  const rows = retryWhere(db, 'id = ?', [t.id], now);
  if (rows.length === 0) return 'conflict';
  tally.task(t, t.status, 'pending');
  return 'retried';
}

export function retryFailed(db: Db, filter: FailureFilter, tally: Tally, now: number): number {
  const { where, params } = failureWhere(filter);
  const rows = retryWhere(db, where, params, now);
  for (const r of rows) tally.task(r, r.prior, 'pending');
  return rows.length;
}

function remove(db: Db, t: Row, tally: Tally): void {
  stmt(db, 'DELETE FROM ExecutionLog WHERE task_id = ?').run(t.id);
  stmt(db, 'DELETE FROM Tasks WHERE id = ?').run(t.id);
  tally.task(t, t.status, null);
}

export function deleteTask(db: Db, token: string, tally: Tally): DeleteResult {
  const t = byToken(db, token);
  if (!t) return 'not_found';
  if (t.status === 'pending' || t.status === 'running') return 'conflict';
  remove(db, t, tally);
  return 'deleted';
}

export function deleteFailed(db: Db, filter: FailureFilter, tally: Tally): number {
  const { where, params } = failureWhere(filter);
  const rows = stmt(db, `SELECT id, queue, batch_id, stage, status FROM Tasks WHERE ${where}`).all(...params) as Row[];
  for (const r of rows) remove(db, r, tally);
  return rows.length;
}

/** Delete up to `chunk` terminal tasks finished before the cutoff, with their log rows. */
export function pruneChunk(db: Db, cutoff: number, chunk: number, tally: Tally): PruneResult {
  const rows = stmt(db, `SELECT id, queue, batch_id, stage, status FROM Tasks WHERE status IN ('succeeded', 'dead', 'cancelled')
      AND finished_at < ? LIMIT ?`).all(cutoff, chunk) as Row[];
  let attempts = 0;
  for (const t of rows) {
    attempts += stmt(db, 'DELETE FROM ExecutionLog WHERE task_id = ?').run(t.id).changes;
    stmt(db, 'DELETE FROM Tasks WHERE id = ?').run(t.id);
    tally.task(t, t.status, null);
  }
  return { tasks: rows.length, attempts };
}

export function pruneRest(db: Db, cutoff: number, now: number): void {
  stmt(db, "DELETE FROM Workers WHERE state IN ('stopped', 'lost') AND heartbeat_at < ?").run(cutoff);
  stmt(db, 'DELETE FROM Metrics WHERE sec < ?').run(Math.floor((now - 24 * 3600 * 1000) / 1000));
  stmt(db, "DELETE FROM QueueCounts WHERE n = 0 AND status IN ('succeeded', 'dead', 'cancelled')").run();
  stmt(db, `DELETE FROM BatchStages WHERE batch_id IN (SELECT id FROM Batches WHERE status IN ('completed', 'cancelled', 'aborted')
      AND completed_at < ?) AND total = 0`).run(cutoff);
  stmt(db, `DELETE FROM Batches WHERE status IN ('completed', 'cancelled', 'aborted') AND completed_at < ?
      AND NOT EXISTS (SELECT 1 FROM BatchStages s WHERE s.batch_id = Batches.id)`).run(cutoff);
  stmt(db, 'DELETE FROM QueueChanges WHERE at < ?').run(cutoff);
}
