// What operators do to tasks: cancel, retry, delete — one task by its token, or every dead task matching
// a failure filter. Every status change goes through the tally, and moves the task's children (edges.ts).
// (Pruning is in maintenance.ts.)
import type { AuditWrite, CancelResult, CommandPort, DedupKeyHeld, DeleteResult, RetryResult } from '../../lib/engine/ports';
import type { FailureFilter, RetryFailedResult, TaskStatus } from '../../lib/engine/types';
import { deleteTaskOutput } from './attempt-logs';
import type { Steps } from './big-write';
import type { Db, Shared } from './connection';
import { dropEdges, hasOpenChild, parentsFailed, retryTask } from './edges';
import { releaseToken } from './queues';
import { failureWhere } from './reads';
import { BATCH_STATUS } from './sql/batches';
import * as S from './sql/operators';
import { deleteSteps } from './steps';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';
import type { Tally, TaskKey } from './tally';

type Row = TaskKey & { id: number; status: string };
type Candidate = TaskKey & { id: number; prior: string; dedup_key: string | null; held: number };

const byToken = (db: Db, token: string) => stmt(db, S.TASK_BY_TOKEN).get(token) as Row | undefined;

/**
 * waiting, pending or claimed (not started: its pool drops it) → cancelled (its children's policies applied);
 * running → cancel requested (cooperative)
 */
export async function cancel(shared: Shared, token: string, audit?: AuditWrite<CancelResult>): Promise<CancelResult> {
  let ready = false;
  const r = await shared.tx((tally, now): CancelResult => {
    const t = byToken(shared.db, token);
    if (!t) return 'not_found';
    if (notStarted(t.status)) {
      ready = cancelOne(shared.db, t, tally, now);
      return 'cancelled';
    }
    if (t.status === 'running') {
      stmt(shared.db, S.REQUEST_CANCEL).run(t.id);
      return 'cancel_requested';
    }
    return 'conflict';
  }, audit);
  if (ready) shared.wake();
  return r;
}

/** Not started (cancelled at once): waiting, pending, or claimed ahead by a pool. */
export const notStarted = (status: string) => status === 'pending' || status === 'waiting' || status === 'claimed';

/** A task not started is cancelled — a claimed one's token released —, its children's policies not applied yet. */
export function cancelNow(db: Db, t: Row, tally: Tally, now: number): void {
  const held = stmt(db, S.CANCEL_PENDING).get(now, t.id) as { token_no: number | null; attempts: number };
  if (t.status === 'claimed' && held.token_no !== null) releaseToken(db, t.queue, held.token_no, t.id, held.attempts + 1);
  tally.task(t, t.status, 'cancelled');
}

/** A task not started is cancelled; its children's policies apply. True when a child became pending (`run`). */
export function cancelOne(db: Db, t: Row, tally: Tally, now: number): boolean {
  cancelNow(db, t, tally, now);
  return parentsFailed(db, [t.id], tally, now);
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
    retryTask(db, t, t.status, tally, now);
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
  // how many is known only inside: written as a big write (in slices), whatever the count
  const out = await shared.write(
    Infinity,
    function* (db, tally, now): Steps<RetryFailedResult> {
      const { filters, params } = failureWhere(filter);
      const rows = stmt(db, S.retryCandidatesSql(filters)).all(...params) as Candidate[];
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
        retryTask(db, r, r.prior, tally, now);
        retried++;
        yield;
      }
      return { retried, skipped: { dedupKeyHeld: held } };
    },
    audit,
  );
  if (out.retried) shared.wake();
  return out;
}

/** Delete a task with its log rows, output and edges; returns how many attempts (log rows) went with it. */
export function remove(db: Db, t: Row, tally: Tally): number {
  dropEdges(db, t.id);
  const attempts = stmt(db, S.DELETE_TASK_LOG).run(t.id).changes;
  deleteTaskOutput(db, t.id);
  deleteSteps(db, t.id);
  stmt(db, S.DELETE_TASK).run(t.id);
  tally.task(t, t.status, null);
  return attempts;
}

/** Whether a task may be deleted: finished, and no unfinished task depends on it. */
export function mayDelete(db: Db, t: Row): boolean {
  return t.status !== 'waiting' && t.status !== 'pending' && t.status !== 'running' && !hasOpenChild(db, t.id);
}

/** delete a terminal task no unfinished task depends on, with its log rows */
export function deleteTask(shared: Shared, token: string, audit?: AuditWrite<DeleteResult>): Promise<DeleteResult> {
  return shared.tx((tally): DeleteResult => {
    const t = byToken(shared.db, token);
    if (!t) return 'not_found';
    if (!mayDelete(shared.db, t)) return 'conflict';
    remove(shared.db, t, tally);
    return 'deleted';
  }, audit);
}

/** delete every dead task matching the filter (not those an unfinished task depends on); returns how many */
export function deleteFailed(shared: Shared, filter: FailureFilter, audit?: AuditWrite<number>): Promise<number> {
  // how many is known only inside: written as a big write (in slices), whatever the count
  return shared.write(
    Infinity,
    function* (db, tally): Steps<number> {
      const { filters, params } = failureWhere(filter);
      let deleted = 0;
      for (const r of stmt(db, S.matchingTasksSql(filters)).all(...params) as Row[]) {
        if (hasOpenChild(db, r.id)) continue;
        remove(db, r, tally);
        deleted++;
        yield;
      }
      return deleted;
    },
    audit,
  );
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { cancel, retry, retryFailed, deleteTask, deleteFailed } satisfies Slice<Shared, CommandPort>;
