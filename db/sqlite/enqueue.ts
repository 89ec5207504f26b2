// Producers: enqueue one task or many in one transaction. Each task is checked against its queue (created
// with the defaults if new) and its batch; a dedup key held by an unfinished task returns that task.
import { v7 as uuidv7 } from 'uuid';
import { ValidationError } from '../../lib/engine/errors';
import type { EnqueueInput, EnqueueResult } from '../../lib/engine/types';
import { checkOpen } from './batches';
import type { Db, Shared } from './connection';
import { ensureQueue } from './queues';
import { toJson, type QueueRow } from './rows';
import { FIND_DEDUP, INSERT_CHUNK, INSERT_TASK, INSERT_TASKS } from './sql/enqueue';
import { stmt, type Tally } from './tally';

export const DEFAULT_QUEUE = 'default';

export async function enqueue(shared: Shared, input: EnqueueInput): Promise<EnqueueResult> {
  const r = await shared.tx((tally, now) => {
    const row = taskRow(shared.db, input, tally, now, new Map());
    if (!('params' in row)) return row;
    insertRows(shared.db, [row.params]);
    return { token: row.token, created: true };
  });
  shared.wake();
  return r;
}

/** all in one transaction; results in input order */
export async function enqueueMany(shared: Shared, inputs: EnqueueInput[]): Promise<EnqueueResult[]> {
  if (inputs.length === 0) return [];
  const r = await shared.tx((tally, now) => enqueueIn(shared.db, inputs, tally, now));
  shared.wake();
  return r;
}

/** The tasks written on `db`, inside a write transaction of the caller's (the store's own, or withTransaction's). */
export function enqueueIn(db: Db, inputs: EnqueueInput[], tally: Tally, now: number): EnqueueResult[] {
  const cache = new Map<string, QueueRow>();
  let pending: unknown[][] = [];
  const results = inputs.map((input): EnqueueResult => {
    // a dedup key must see every task before it, so rows still buffered are written first
    if (input.dedupKey && pending.length) {
      insertRows(db, pending);
      pending = [];
    }
    const row = taskRow(db, input, tally, now, cache);
    if (!('params' in row)) return row;
    if (input.dedupKey) insertRows(db, [row.params]);
    else pending.push(row.params);
    if (pending.length >= INSERT_CHUNK * 20) {
      insertRows(db, pending);
      pending = [];
    }
    return { token: row.token, created: true };
  });
  insertRows(db, pending);
  return results;
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
  // time-ordered (v7): new tokens append to the token index instead of landing on random pages
  const token = uuidv7();
  tally.task({ queue, batch_id: batchId, stage }, null, 'pending');
  tally.metric(now, 'enqueued');
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
      input.caller ?? null,
      batchId,
      stage,
      now,
    ],
  };
}

/** INSERT the rows, INSERT_CHUNK at once while there are that many (multi-row VALUES), then one by one. */
function insertRows(db: Db, params: unknown[][]): void {
  for (let i = 0; i < params.length; ) {
    const n = params.length - i >= INSERT_CHUNK ? INSERT_CHUNK : 1;
    stmt(db, n === 1 ? INSERT_TASK : INSERT_TASKS).run(...params.slice(i, i + n).flat());
    i += n;
  }
}
