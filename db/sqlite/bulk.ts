// Bulk commands on tasks — retry, cancel, delete, run now, priority — over a chunk of tokens in one
// transaction, and editing a task that is not running (optionally retrying it in the same step). Every
// status change goes through the tally; a queue change moves the task's count to its new queue.
import type { AuditWrite, CommandPort } from '../../lib/engine/ports';
import type { BulkAction, BulkOutcome, EditTaskResult, TaskPatch } from '../../lib/engine/types';
import type { Db, Shared } from './connection';
import { parentsLeftNow, rearm, retryTask } from './edges';
import { cancelOne, dedupHolder, mayDelete, notStarted, remove } from './operators';
import { ensureQueue } from './queues';
import { taskView, toJson, type TaskRow } from './rows';
import { BATCH_STATUS } from './sql/batches';
import * as B from './sql/bulk';
import * as O from './sql/operators';
import { GET_TASK } from './sql/reads';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';
import type { Tally, TaskKey } from './tally';

type Row = TaskKey & { id: number; status: string; run_after: number };

/**
 * Whether a dead or cancelled task may come back: not of a finished batch, not past an aborted stage, its
 * dedup key free (`held` when an unfinished task holds it).
 */
function mayRetry(db: Db, t: TaskKey & { id: number }): boolean | 'held' {
  if (t.batch_id !== null) {
    const b = stmt(db, BATCH_STATUS).get(t.batch_id) as { status: string } | undefined;
    if (b && (b.status === 'completed' || b.status === 'cancelled')) return false;
    if (stmt(db, O.PAST_ABORT).get(t.batch_id, t.stage)) return false;
  }
  if (stmt(db, O.RETRY_ONE_CANDIDATE).get(t.id) !== undefined) return true;
  return dedupHolder(db, t.id) ? 'held' : false;
}

/** Apply one action to one task; true when it was done, `held` when a retry found its dedup key held. */
function apply(db: Db, action: BulkAction, t: Row, priority: number, tally: Tally, now: number): boolean | 'held' {
  switch (action) {
    case 'retry': {
      if (t.status !== 'dead' && t.status !== 'cancelled') return false;
      const may = mayRetry(db, t);
      if (may !== true) return may;
      retryTask(db, t, t.status, tally, now);
      return true;
    }
    case 'cancel':
      if (notStarted(t.status)) {
        cancelOne(db, t, tally, now);
        return true;
      }
      if (t.status === 'running') {
        stmt(db, O.REQUEST_CANCEL).run(t.id);
        return true;
      }
      return false;
    case 'delete':
      if (!mayDelete(db, t)) return false;
      remove(db, t, tally);
      return true;
    case 'run_now':
      if (t.status !== 'pending' || t.run_after <= now) return false;
      stmt(db, B.RUN_NOW).run(now, t.id);
      return true;
    case 'priority':
      if (t.status === 'running' || t.status === 'claimed' || t.status === 'succeeded') return false;
      stmt(db, B.SET_PRIORITY).run(priority, t.id);
      return true;
  }
}

export async function bulk(
  shared: Shared,
  action: BulkAction,
  tokens: string[],
  opts: { priority?: number },
  audit?: AuditWrite<BulkOutcome>,
): Promise<BulkOutcome> {
  const out = await shared.tx((tally, now) => {
    const o: BulkOutcome = { done: 0, skipped: 0, missing: 0, dedupKeyHeld: 0 };
    const db = shared.db;
    const rows: Row[] = [];
    for (const token of new Set(tokens.map((x) => x.toLowerCase()))) {
      const t = stmt(db, B.BULK_TASK).get(token) as Row | undefined;
      if (t) rows.push(t);
      else o.missing++;
    }
    // a retry takes the newest of the tasks sharing a dedup key (as retryFailed); the older find it held
    if (action === 'retry') rows.sort((a, b) => b.id - a.id);
    for (const t of rows) {
      const done = apply(db, action, t, opts.priority ?? 0, tally, now);
      if (done === true) o.done++;
      else o.skipped++;
      if (done === 'held') o.dedupKeyHeld++;
    }
    return o;
  }, audit);
  // a cancel may let a child run (policy run)
  if (out.done && action !== 'delete') shared.wake();
  return out;
}

export async function editTask(
  shared: Shared,
  token: string,
  patch: TaskPatch,
  retry: boolean,
  audit?: AuditWrite<EditTaskResult>,
): Promise<EditTaskResult> {
  const r = await shared.tx((tally, now): EditTaskResult => {
    const db = shared.db;
    const row = stmt(db, GET_TASK).get(token) as TaskRow | undefined;
    if (!row) return { result: 'not_found' };
    if (row.status === 'running' || row.status === 'claimed') return { result: 'running' };
    if (row.status === 'succeeded') return { result: 'conflict' };
    const from = row.status;
    const back = retry && (from === 'dead' || from === 'cancelled');
    if (back && mayRetry(db, row) !== true) return { result: 'conflict' };
    // a retried task waits while a parent is unfinished
    const to = back ? (parentsLeftNow(db, row.id) > 0 ? 'waiting' : 'pending') : from;
    const queue = patch.queue ?? row.queue;
    if (queue !== row.queue) ensureQueue(db, queue, now);
    const payload = patch.payload === undefined ? row.payload : toJson(patch.payload);
    const runAfter = patch.runAt ? patch.runAt.getTime() : back ? now : row.run_after;
    let maxAttempts = patch.maxAttempts ?? row.max_attempts;
    if (back) maxAttempts = Math.max(maxAttempts, row.attempts + 1);
    const finishedAt = back ? null : row.finished_at;
    const priority = patch.priority ?? row.priority;
    stmt(db, B.EDIT_TASK).run(queue, payload, priority, runAfter, maxAttempts, to, finishedAt, row.id, from);
    if (from !== to) tally.task(row, from, to);
    if (back) rearm(db, row.id, tally);
    if (queue !== row.queue) {
      tally.count(row.queue, to, -1);
      tally.count(queue, to, 1);
    }
    const after = stmt(db, GET_TASK).get(token) as TaskRow;
    return { result: back ? 'retried' : 'edited', before: taskView(row), after: taskView(after) };
  }, audit);
  if (r.result === 'retried' || (r.result === 'edited' && r.after.status === 'pending')) shared.wake();
  return r;
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { editTask, bulk } satisfies Slice<Shared, CommandPort>;
