// Producers: enqueue one task or many in one transaction. Each task is checked against its queue (created
// with the defaults if new) and its batch; a dedup key held by an unfinished task returns that task.
// A bulk enqueue pays per chunk what it can: multi-row INSERTs, the random bytes of its tokens (drawn in blocks:
// lib/engine/tokens.ts), and its kept aggregates (one delta per queue and command, applied once per transaction).
import type { AuditWrite } from '../../lib/engine/ports';
import { ValidationError } from '../../lib/engine/errors';
import { taskKey } from '../../lib/engine/keys';
import type { EnqueueInput, EnqueueResult } from '../../lib/engine/types';
import { checkOpen } from './batches';
import type { Db, Shared } from './connection';
import { ensureQueue } from './queues';
import { toJson, type QueueRow } from './rows';
import { newToken } from './tokens';
import { FIND_DEDUP, INSERT_CHUNKS, insertTasks, TASK_COLUMNS } from './sql/enqueue';
import { stmt } from './stmt';
import type { Tally } from './tally';

export const DEFAULT_QUEUE = 'default';

export async function enqueue(shared: Shared, input: EnqueueInput, audit?: AuditWrite<EnqueueResult>): Promise<EnqueueResult> {
  const r = await shared.tx((tally, now): EnqueueResult => {
    const counts = new Enqueued();
    const row = taskRow(shared.db, input, tally, now, new Map(), counts);
    if (!('token' in row && 'params' in row)) return row;
    insertRows(shared.db, row.params);
    counts.apply(tally, now);
    return { token: row.token, created: true };
  }, audit);
  shared.wake();
  return r;
}

/** all in one transaction; results in input order */
export async function enqueueMany(shared: Shared, inputs: EnqueueInput[], audit?: AuditWrite<EnqueueResult[]>): Promise<EnqueueResult[]> {
  if (inputs.length === 0) return [];
  const r = await shared.tx((tally, now) => enqueueIn(shared.db, inputs, tally, now), audit);
  shared.wake();
  return r;
}

/** The tasks written on `db`, inside a write transaction of the caller's (the store's own, or withTransaction's). */
export function enqueueIn(db: Db, inputs: EnqueueInput[], tally: Tally, now: number): EnqueueResult[] {
  const cache = new Map<string, QueueRow>();
  const counts = new Enqueued();
  /** INSERT parameters of rows not written yet, one row after the other */
  let pending: unknown[] = [];
  const results = inputs.map((input): EnqueueResult => {
    // a dedup key must see every task before it, so rows still buffered are written first
    if (input.dedupKey && pending.length) {
      insertRows(db, pending);
      pending = [];
    }
    const row = taskRow(db, input, tally, now, cache, counts);
    if (!('params' in row)) return row;
    if (input.dedupKey) insertRows(db, row.params);
    else for (const v of row.params) pending.push(v);
    if (pending.length >= INSERT_CHUNKS[0]! * TASK_COLUMNS * 10) {
      insertRows(db, pending);
      pending = [];
    }
    return { token: row.token, created: true };
  });
  insertRows(db, pending);
  counts.apply(tally, now);
  return results;
}

/** The kept-aggregate deltas of the tasks an enqueue created, applied to the transaction's tally once. */
class Enqueued {
  /** unbatched tasks per queue (a batch's task moves its stage counts too: tallied one by one) */
  private readonly pending = new Map<string, number>();
  /** per queue \0 command, for the history */
  private readonly byCommand = new Map<string, number>();
  private total = 0;

  add(tally: Tally, queue: string, batchId: number | null, stage: number | null, command: string): void {
    if (batchId === null) this.pending.set(queue, (this.pending.get(queue) ?? 0) + 1);
    else tally.task({ queue, batch_id: batchId, stage }, null, 'pending');
    const key = queue + '\u0000' + command;
    this.byCommand.set(key, (this.byCommand.get(key) ?? 0) + 1);
    this.total++;
  }

  apply(tally: Tally, now: number): void {
    if (this.total === 0) return;
    // what tally.task(t, null, 'pending') does for a task outside a batch
    for (const [queue, n] of this.pending) tally.count(queue, 'pending', n);
    tally.metric(now, 'enqueued', this.total);
    for (const [key, n] of this.byCommand) {
      const i = key.indexOf('\u0000');
      tally.historyEnqueued(now, key.slice(0, i), key.slice(i + 1), n);
    }
  }
}

/**
 * Validate one task against its queue and batch, and return its INSERT parameters — or, when its
 * dedup key is held by an unfinished task, that task's token.
 */
function taskRow(
  db: Db,
  input: EnqueueInput,
  tally: Tally,
  now: number,
  cache: Map<string, QueueRow>,
  counts: Enqueued,
): { token: string; params: unknown[] } | EnqueueResult {
  const queue = input.queue ?? DEFAULT_QUEUE;
  let q = cache.get(queue);
  if (!q) cache.set(queue, (q = ensureQueue(db, queue, now)));
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
  counts.add(tally, queue, batchId, stage, input.command);
  return {
    token,
    params: [
      token,
      queue,
      input.kind,
      input.command,
      toJson(input.payload),
      input.priority ?? 0,
      input.runAt ? input.runAt.getTime() : now,
      input.maxAttempts ?? q.max_attempts,
      input.timeoutMs === undefined ? q.timeout_ms : input.timeoutMs,
      input.dedupKey ?? null,
      // given, else derived from the payload by the queue's keyFrom (a trigger gives the key its ConcurrencyKeys row)
      taskKey(input.concurrencyKey, input.payload, q.key_from),
      input.caller ?? null,
      batchId,
      stage,
      now,
    ],
  };
}

/** INSERT the rows (their parameters one row after the other): the largest chunks first (multi-row VALUES). */
function insertRows(db: Db, params: unknown[]): void {
  let rows = params.length / TASK_COLUMNS;
  let at = 0;
  for (const size of INSERT_CHUNKS) {
    if (rows < size) continue;
    const st = stmt(db, insertTasks(size));
    const width = size * TASK_COLUMNS;
    while (rows >= size) {
      st.run(at === 0 && params.length === width ? params : params.slice(at, at + width));
      at += width;
      rows -= size;
    }
  }
}
