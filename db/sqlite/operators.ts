// What operators do to tasks: cancel, retry, delete — one task by its token, or every dead task matching
// a failure filter. Every status change goes through the tally. (Pruning is in maintenance.ts.)
import type { AuditWrite, CancelResult, CommandPort, DedupKeyHeld, DeleteResult, RetryResult } from '../../lib/engine/ports';
import type { FailureFilter, RetryFailedResult, TaskStatus } from '../../lib/engine/types';
import { deleteTaskOutput } from './attempt-logs';
import type { Db, Shared } from './connection';
import { failureWhere } from './reads';
import { BATCH_STATUS } from './sql/batches';
import * as S from './sql/operators';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';
import type { Tally, TaskKey } from './tally';

type Row = TaskKey & { id: number; status: string };
type Candidate = TaskKey & { id: number; prior: string; dedup_key: string | null; held: number };

const byToken = (db: Db, token: string) => stmt(db, S.TASK_BY_TOKEN).get(token) as Row | undefined;

/** pending → cancelled; running → cancel requested (cooperative) */
export function cancel(shared: Shared, token: string, audit?: AuditWrite<CancelResult>): Promise<CancelResult> {
  return shared.tx((tally, now): CancelResult => {
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
  }, audit);
}

/** The unfinished task holding a task's dedup key, or null. */
export function dedupHolder(db: Db, taskId: number): DedupKeyHeld | null {
  const h = stmt(db, S.DEDUP_HOLDER).get(taskId) as { token: string; status: TaskStatus; dedup_key: string } | undefined;
  return h ? { result: 'dedup_key_held', dedupKey: h.dedup_key, token: h.token, status: h.status } : null;
}

export async function retry(shared: Shared, token: string, audit?: AuditWrite<RetryResult>): Promise<RetryResult> {
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
    if (!stmt(db, S.RETRY_ONE_CANDIDATE).get(t.id)) return dedupHolder(db, t.id) ?? 'conflict';
    stmt(db, S.RETRY_TASK).run(now, t.id);
    tally.task(t, t.status, 'pending');
    return 'retried';
  }, audit);
  if (r === 'retried') shared.wake();
  return r;
}

/**
 * Retry every dead task matching the filter (not those of a stage after a failed one, see retry): the
 * newest per dedup key, unless an unfinished task holds the key; the others are counted as skipped.
 */
export async function retryFailed(
  shared: Shared,
  filter: FailureFilter,
  audit?: AuditWrite<RetryFailedResult>,
): Promise<RetryFailedResult> {
  const out = await shared.tx((tally, now): RetryFailedResult => {
    const { filters, params } = failureWhere(filter);
    const rows = stmt(shared.db, S.retryCandidatesSql(filters)).all(...params) as Candidate[];
    const upd = stmt(shared.db, S.RETRY_TASK);
    const taken = new Set<string>();
    let retried = 0;
    let held = 0;
    // newest first: the first of a key comes back, the rest would hold it twice
    for (const r of rows) {
      if (r.dedup_key !== null) {
        if (r.held || taken.has(r.dedup_key)) {
          held++;
          continue;
        }
        taken.add(r.dedup_key);
      }
      upd.run(now, r.id);
      tally.task(r, r.prior, 'pending');
      retried++;
    }
    return { retried, skipped: { dedupKeyHeld: held } };
  }, audit);
  if (out.retried) shared.wake();
  return out;
}

function remove(db: Db, t: Row, tally: Tally): void {
  stmt(db, S.DELETE_TASK_LOG).run(t.id);
  deleteTaskOutput(db, t.id);
  stmt(db, S.DELETE_TASK).run(t.id);
  tally.task(t, t.status, null);
}

/** delete a terminal task and its log rows */
export function deleteTask(shared: Shared, token: string, audit?: AuditWrite<DeleteResult>): Promise<DeleteResult> {
  return shared.tx((tally): DeleteResult => {
    const t = byToken(shared.db, token);
    if (!t) return 'not_found';
    if (t.status === 'pending' || t.status === 'running') return 'conflict';
    remove(shared.db, t, tally);
    return 'deleted';
  }, audit);
}

/** delete every dead task matching the filter; returns how many */
export function deleteFailed(shared: Shared, filter: FailureFilter, audit?: AuditWrite<number>): Promise<number> {
  return shared.tx((tally) => {
    const { filters, params } = failureWhere(filter);
    const rows = stmt(shared.db, S.matchingTasksSql(filters)).all(...params) as Row[];
    for (const r of rows) remove(shared.db, r, tally);
    return rows.length;
  }, audit);
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { cancel, retry, retryFailed, deleteTask, deleteFailed } satisfies Slice<Shared, CommandPort>;
