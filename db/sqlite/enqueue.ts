// Producers: enqueue one task or many in one transaction; a plain task enqueued alone is appended to the intake
// (intake.ts), which the next write or read moves into Tasks. Each task is checked against its queue (created
// with the defaults if new) and its batch; a dedup key held by an unfinished task returns that task.
// A bulk enqueue pays per chunk what it can: multi-row INSERTs, the random bytes of its tokens (drawn in blocks:
// lib/engine/tokens.ts), and its kept aggregates (one delta per queue and command, applied once per transaction).
// A task with dependencies is written on its own, with its edges (dependencies.ts).
import type { AuditWrite } from '../../lib/engine/ports';
import { ValidationError } from '../../lib/engine/errors';
import type { EnqueueInput, EnqueueResult, TaskStatus } from '../../lib/engine/types';
import { checkOpen } from './batches';
import { runSteps, type Steps } from './big-write';
import type { Db, Shared } from './connection';
import { linkParents, resolveParents } from './dependencies';
import { enqueueDefaults, type QueueDefaults } from './queues';
import { newToken } from './tokens';
import { insertRows } from './insert-rows';
import { taskValues } from './task-values';
import { appendable, appendTask } from './intake';
import { FIND_DEDUP, INSERT_CHUNKS, insertLinkedTasks, LINKED_TASK_COLUMNS, TASK_COLUMNS } from './sql/enqueue';
import { stmt } from './stmt';
import type { Tally } from './tally';

export const DEFAULT_QUEUE = 'default';

export async function enqueue(shared: Shared, input: EnqueueInput, audit?: AuditWrite<EnqueueResult>): Promise<EnqueueResult> {
  // a plain task: appended to the intake in one statement (intake.ts), unless its queue is new
  if (!audit && appendable(input)) {
    const queue = input.queue ?? DEFAULT_QUEUE;
    const appended = await shared.append(() => appendTask(shared.db, input, queue));
    if (appended) {
      shared.wake();
      return appended;
    }
  }
  const r = await shared.tx((tally, now) => enqueueOne(shared.db, input, tally, now), audit);
  shared.wake();
  return r;
}

/** One task enqueued alone: a plain one written at once (no steps, no rows buffered); one with parents as enqueueIn. */
function enqueueOne(db: Db, input: EnqueueInput, tally: Tally, now: number): EnqueueResult {
  if (input.dependsOn?.length) return enqueueIn(db, [input], tally, now, true)[0]!;
  const counts = new Enqueued();
  const row = taskRow(db, input, tally, now, new Map(), counts);
  if (!('params' in row)) return row;
  insertRows(db, row.params);
  counts.apply(tally, now);
  return { token: row.token, created: true };
}

/** all in one transaction, written in slices when there are many (big-write.ts); results in input order */
export async function enqueueMany(shared: Shared, inputs: EnqueueInput[], audit?: AuditWrite<EnqueueResult[]>): Promise<EnqueueResult[]> {
  if (inputs.length === 0) return [];
  const r = await shared.write(inputs.length, (db, tally, now) => enqueueSteps(db, inputs, tally, now), audit);
  shared.wake();
  return r;
}

/**
 * The tasks written on `db` at once, inside a write transaction of the caller's (the store's own, or
 * withTransaction's). `single`: one task enqueued alone (a refused field is named `dependsOn.0`, not `tasks.0.dependsOn.0`).
 */
export function enqueueIn(db: Db, inputs: EnqueueInput[], tally: Tally, now: number, single = false): EnqueueResult[] {
  return runSteps(enqueueSteps(db, inputs, tally, now, single));
}

/** The tasks written on `db`, inside a write transaction; it may pause after each multi-row INSERT. */
function* enqueueSteps(db: Db, inputs: EnqueueInput[], tally: Tally, now: number, single = false): Steps<EnqueueResult[]> {
  const cache = new Map<string, QueueDefaults>();
  const counts = new Enqueued();
  /** INSERT parameters of rows not written yet, one row after the other */
  let pending: unknown[] = [];
  const results: EnqueueResult[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i]!;
    // a dedup key must see every task before it, and a parent must exist: rows still buffered are written first
    if ((input.dedupKey || input.dependsOn?.length) && pending.length) {
      insertRows(db, pending);
      pending = [];
    }
    if (input.dependsOn?.length) {
      const parents = resolveParents(db, input.dependsOn, single ? '' : `tasks.${i}.`);
      const row = taskRow(db, input, tally, now, cache, counts, parents.status);
      if (!('params' in row)) {
        results.push(row);
        continue;
      }
      const ids = insertRows(db, [...row.params, ...parents.columns], insertLinkedTasks, LINKED_TASK_COLUMNS);
      linkParents(db, ids[0]!, parents, now);
      results.push({ token: row.token, created: true });
      yield;
      continue;
    }
    const row = taskRow(db, input, tally, now, cache, counts);
    if (!('params' in row)) {
      results.push(row);
      continue;
    }
    if (input.dedupKey) insertRows(db, row.params);
    else for (const v of row.params) pending.push(v);
    results.push({ token: row.token, created: true });
    if (pending.length >= INSERT_CHUNKS[0]! * TASK_COLUMNS * 10) {
      insertRows(db, pending);
      pending = [];
    }
    // a place to pause every 64 tasks (a task alone is too little work to ask the clock after)
    if ((i & 63) === 63) yield;
  }
  insertRows(db, pending);
  counts.apply(tally, now);
  return results;
}

/** The kept-aggregate deltas of the tasks an enqueue created, applied to the transaction's tally once. */
export class Enqueued {
  /** unbatched tasks per queue \0 status (a batch's task moves its stage counts too: tallied one by one) */
  private readonly created = new Map<string, number>();
  /** per queue \0 command, for the history */
  private readonly byCommand = new Map<string, number>();
  private total = 0;

  add(tally: Tally, queue: string, batchId: number | null, stage: number | null, command: string, status: TaskStatus = 'pending'): void {
    if (batchId === null) {
      const key = queue + '\u0000' + status;
      this.created.set(key, (this.created.get(key) ?? 0) + 1);
    } else tally.task({ queue, batch_id: batchId, stage }, null, status);
    const key = queue + '\u0000' + command;
    this.byCommand.set(key, (this.byCommand.get(key) ?? 0) + 1);
    this.total++;
  }

  apply(tally: Tally, now: number): void {
    if (this.total === 0) return;
    // what tally.task(t, null, status) does for a task outside a batch
    for (const [key, n] of this.created) {
      const i = key.indexOf('\u0000');
      tally.count(key.slice(0, i), key.slice(i + 1), n);
    }
    tally.metric(now, 'enqueued', this.total);
    for (const [key, n] of this.byCommand) {
      const i = key.indexOf('\u0000');
      tally.historyEnqueued(now, key.slice(0, i), key.slice(i + 1), n);
    }
  }
}

/**
 * Validate one task against its queue and batch, and return its INSERT parameters (TASK_COLUMNS) — or, when
 * its dedup key is held by an unfinished task, that task's token. `status`: what it is created as (counted).
 */
export function taskRow(
  db: Db,
  input: EnqueueInput,
  tally: Tally,
  now: number,
  cache: Map<string, QueueDefaults>,
  counts: Enqueued,
  status: TaskStatus = 'pending',
): { token: string; params: unknown[] } | EnqueueResult {
  const queue = input.queue ?? DEFAULT_QUEUE;
  let q = cache.get(queue);
  if (!q) cache.set(queue, (q = enqueueDefaults(db, queue, now)));
  const batchId = input.batchId ?? null;
  const stage = batchId === null ? null : (input.stage ?? 0);
  if (batchId === null && input.stage != null) throw new ValidationError('stage', 'a stage needs a batch');
  if (batchId !== null) checkOpen(db, batchId, stage!);
  if (input.dedupKey) {
    const existing = stmt(db, FIND_DEDUP).get(input.dedupKey) as { token: string } | undefined;
    if (existing) return { token: existing.token, created: false };
  }
  // time-ordered: new tokens append to the token index instead of landing on random pages (tokens.ts)
  const token = newToken(now);
  counts.add(tally, queue, batchId, stage, input.command, status);
  return { token, params: taskValues(token, queue, input, q, now, batchId, stage) };
}
