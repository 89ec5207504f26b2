// The intake: where a plain task enqueued alone goes first. A producer's `enqueue` is on its own request path, and
// a Tasks row costs its table page, four index pages and three kept counts written by its own commit; appending to
// Intake (migration 20: no index but its rowid) writes one page in one statement. What the row needs from its
// queue (defaults, the key from keyFrom) is resolved at the append, so moving it cannot fail on its data.
//
// Every write transaction of the store, in any process (tallied: a claim, a heartbeat, a command), moves all of
// the intake into Tasks first — in the order appended, counted then, in the same transaction — so a write never
// sees Tasks without a task appended before it. A read of the store moves it first too (store.ts), so what a
// producer enqueued is visible to the next read. A task with a dedup key, parents, a batch or a queue not created
// yet, an audited enqueue and an enqueue inside withTransaction are written to Tasks directly (enqueue.ts).
import type { EnqueueInput, EnqueueResult } from '../../lib/engine/types';
import type { Db } from './connection';
import type { QueueDefaults } from './queues';
import { ADMIT_INTAKE, APPEND_INTAKE, CLEAR_INTAKE, ENSURE_INTAKE_QUEUES, INTAKE_ANY, INTAKE_COUNTS } from './sql/intake';
import { GET_QUEUE_DEFAULTS } from './sql/queues';
import { stmt } from './stmt';
import type { Tally } from './tally';
import { intakeValues, taskValues } from './task-values';
import { newToken } from './tokens';

/** Whether `input` may be appended to the intake (else it is written to Tasks directly). */
export function appendable(input: EnqueueInput): boolean {
  return !input.dedupKey && !input.dependsOn?.length && input.batchId == null && input.stage == null;
}

/**
 * Append `input` (appendable) to the intake in one statement, outside any transaction (its own); null when its
 * queue does not exist yet (the direct write creates it). A key keyFrom finds too long is refused here, nothing written.
 */
export function appendTask(db: Db, input: EnqueueInput, queue: string): EnqueueResult | null {
  const q = stmt(db, GET_QUEUE_DEFAULTS).get(queue) as QueueDefaults | undefined;
  if (!q) return null;
  const now = Date.now();
  const token = newToken(now);
  // the key is derived here: a key keyFrom finds too long is refused before anything is written
  stmt(db, APPEND_INTAKE).run(intakeValues(taskValues(token, queue, input, q, now, null, null)));
  return { token, created: true };
}

/** Whether any task waits in the intake (one page read). */
export function intakeWaiting(db: Db): boolean {
  return stmt(db, INTAKE_ANY).get() !== undefined;
}

/**
 * Move every task in the intake into Tasks as pending, in the order appended, counting them in `tally`; inside a
 * write transaction (BEGIN IMMEDIATE: no process appends meanwhile). Returns how many moved.
 */
export function admit(db: Db, tally: Tally, now: number): number {
  if (!intakeWaiting(db)) return 0;
  stmt(db, ENSURE_INTAKE_QUEUES).run(now);
  let total = 0;
  for (const r of stmt(db, INTAKE_COUNTS).all() as { queue: string; command: string; n: number }[]) {
    tally.count(r.queue, 'pending', r.n);
    tally.historyEnqueued(now, r.queue, r.command, r.n);
    total += r.n;
  }
  tally.metric(now, 'enqueued', total);
  stmt(db, ADMIT_INTAKE).run();
  stmt(db, CLEAR_INTAKE).run();
  return total;
}
