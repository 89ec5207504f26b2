// What operators do to tasks: cancel, retry, delete — one task by its token, or every dead task matching
// a failure filter. Every status change goes through the tally. (Pruning is in maintenance.ts.)
import type { CancelResult, DeleteResult, RetryResult } from '../../lib/engine/ports';
import type { FailureFilter } from '../../lib/engine/types';
import { deleteTaskOutput } from './attempt-logs';
import type { Db, Shared } from './connection';
import { failureWhere } from './reads';
import { BATCH_STATUS } from './sql/batches';
import * as S from './sql/operators';
import { stmt, type Tally, type TaskKey } from './tally';

type Row = TaskKey & { id: number; status: string };
type Candidate = TaskKey & { id: number; prior: string };

const byToken = (db: Db, token: string) => stmt(db, S.TASK_BY_TOKEN).get(token) as Row | undefined;

/** pending → cancelled; running → cancel requested (cooperative) */
export function cancel(shared: Shared, token: string): Promise<CancelResult> {
  return shared.tx((tally, now) => {
    const t = byToken(shared.db, token);
    if (!t) return 'not_found';
    if (t.status === 'pending') {
      stmt(shared.db, S.CANCEL_PENDING).run(now, t.id);
      tally.task(t, 'pending', 'cancelled');
      return 'cancelled';
    }
    if (t.status === 'running') {
      stmt(shared.db, S.REQUEST_CANCEL).run(t.id);
      return 'cancel_requested';
    }
    return 'conflict';
  });
}

/** dead/cancelled → pending with one more attempt if exhausted; skipped where a live task holds the dedup key */
function retryWhere(db: Db, sql: string, params: unknown[], now: number): Candidate[] {
  const rows = stmt(db, sql).all(...params) as Candidate[];
  const upd = stmt(db, S.RETRY_TASK);
  for (const r of rows) upd.run(now, r.id);
  return rows;
}

export async function retry(shared: Shared, token: string): Promise<RetryResult> {
  const r = await shared.tx((tally, now): RetryResult => {
    const db = shared.db;
    const t = byToken(db, token);
    if (!t) return 'not_found';
    if (t.status !== 'dead' && t.status !== 'cancelled') return 'conflict';
    if (t.batch_id !== null) {
      const b = stmt(db, BATCH_STATUS).get(t.batch_id) as { status: string } | undefined;
      if (b && (b.status === 'completed' || b.status === 'cancelled')) return 'conflict';
      if (stmt(db, S.PAST_ABORT).get(t.batch_id, t.stage)) return 'batch_aborted';
    }
    const rows = retryWhere(db, S.RETRY_ONE_CANDIDATE, [t.id], now);
    if (rows.length === 0) return 'conflict';
    tally.task(t, t.status, 'pending');
    return 'retried';
  });
  if (r === 'retried') shared.wake();
  return r;
}

/** retry every dead task matching the filter (not those of a stage after a failed one, see retry); returns how many */
export async function retryFailed(shared: Shared, filter: FailureFilter): Promise<number> {
  const n = await shared.tx((tally, now) => {
    const { filters, params } = failureWhere(filter);
    const rows = retryWhere(shared.db, S.retryCandidatesSql(filters), params, now);
    for (const r of rows) tally.task(r, r.prior, 'pending');
    return rows.length;
  });
  if (n) shared.wake();
  return n;
}

function remove(db: Db, t: Row, tally: Tally): void {
  stmt(db, S.DELETE_TASK_LOG).run(t.id);
  deleteTaskOutput(db, t.id);
  stmt(db, S.DELETE_TASK).run(t.id);
  tally.task(t, t.status, null);
}

/** delete a terminal task and its log rows */
export function deleteTask(shared: Shared, token: string): Promise<DeleteResult> {
  return shared.tx((tally) => {
    const t = byToken(shared.db, token);
    if (!t) return 'not_found';
    if (t.status === 'pending' || t.status === 'running') return 'conflict';
    remove(shared.db, t, tally);
    return 'deleted';
  });
}

/** delete every dead task matching the filter; returns how many */
export function deleteFailed(shared: Shared, filter: FailureFilter): Promise<number> {
  return shared.tx((tally) => {
    const { filters, params } = failureWhere(filter);
    const rows = stmt(shared.db, S.matchingTasksSql(filters)).all(...params) as Row[];
    for (const r of rows) remove(shared.db, r, tally);
    return rows.length;
  });
}
