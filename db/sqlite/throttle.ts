// Throttle in the SQLite store: rate slots taken in the claim's transaction, the rate windows and key usage
// the read model shows, the slots a new rate starts from, and their housekeeping. A rate-limited (queue, rate_key)
// owns slots 1..limit in RateSlots; an attempt start takes the one used longest ago once it has left the window
// (creating the next one while fewer than `limit` exist), so at most `limit` starts fall in any window. A lowered
// limit leaves slots above it, counted until they leave the window, then dropped.
import type { ReadModel, WorkerPort } from '../../lib/engine/ports';
import type { KeyUsage, RateLimit, RateUsage } from '../../lib/engine/types';
import type { Slice } from '../shared/bind';
import { read, type Db, type Shared } from './connection';
import { DROP_SLOTS_ABOVE, MAX_SLOT, OLDEST_SLOT, RATE_STARTED, TAKE_SLOT } from './sql/claim';
import * as S from './sql/throttle';
import { stmt } from './stmt';

/** The rate key of a task: its key under a per-key rate ('' for none), else '' (the queue's one window). */
export const rateKeyOf = (rate: RateLimit, key: string | null) => (rate.perKey ? (key ?? '') : '');

/** The slot a start of (queue, rate_key) may take now, or null when the window is full. */
export function freeSlot(db: Db, queue: string, rateKey: string, rate: RateLimit, now: number): number | null {
  const from = now - rate.periodSeconds * 1000;
  // slots above a lowered limit: dropped once out of the window, counted while in it
  if ((stmt(db, MAX_SLOT).get(queue, rateKey, Number.MAX_SAFE_INTEGER) as { n: number }).n > rate.limit) {
    stmt(db, DROP_SLOTS_ABOVE).run(queue, rateKey, rate.limit, from);
    if ((stmt(db, RATE_STARTED).get(queue, rateKey, from) as { n: number }).n >= rate.limit) return null;
  }
  const oldest = stmt(db, OLDEST_SLOT).get(queue, rateKey, rate.limit) as { slot_no: number; used_at: number } | undefined;
  if (oldest && oldest.used_at <= from) return oldest.slot_no;
  const have = (stmt(db, MAX_SLOT).get(queue, rateKey, rate.limit) as { n: number }).n;
  return have < rate.limit ? have + 1 : null;
}

/** Take a slot for an attempt start of `taskId`; false (nothing taken) when the window is full. */
export function takeSlot(db: Db, queue: string, rateKey: string, rate: RateLimit, taskId: number, now: number): boolean {
  const slot = freeSlot(db, queue, rateKey, rate, now);
  if (slot === null) return false;
  stmt(db, TAKE_SLOT).run(queue, rateKey, slot, now, taskId);
  return true;
}

/**
 * A new or changed rate starts from the attempts already started in its window, so that "at most `limit` in any
 * window" holds across the change: the queue's slots are replaced by one per start of the last period (per key
 * when the rate is per key), numbered newest first.
 */
export function seedSlots(db: Db, queue: string, rate: RateLimit | null, now: number): void {
  stmt(db, S.DROP_QUEUE_SLOTS).run(queue);
  if (rate === null) return;
  const starts = stmt(db, S.RECENT_STARTS).all(queue, now - rate.periodSeconds * 1000) as {
    task_id: number;
    started_at: number;
    concurrency_key: string | null;
  }[];
  const numbers = new Map<string, number>();
  for (const s of starts) {
    const rk = rateKeyOf(rate, s.concurrency_key);
    const n = (numbers.get(rk) ?? 0) + 1;
    numbers.set(rk, n);
    stmt(db, TAKE_SLOT).run(queue, rk, n, s.started_at, s.task_id);
  }
}

/** The window of (queue, rate_key) at `now`: starts in it, and when the next is allowed if it is full. */
function windowOf(db: Db, queue: string, rateKey: string, rate: RateLimit, now: number): RateUsage {
  const from = now - rate.periodSeconds * 1000;
  const started = (stmt(db, RATE_STARTED).get(queue, rateKey, from) as { n: number }).n;
  let nextAt: Date | null = null;
  if (started >= rate.limit) {
    const r = stmt(db, S.NTH_OLDEST_START).get(queue, rateKey, from, started - rate.limit) as { used_at: number } | undefined;
    if (r) nextAt = new Date(r.used_at + rate.periodSeconds * 1000);
  }
  return { ...rate, started, nextAt };
}

/** A queue's rate usage now: its window, or for a per-key rate the window of its busiest key. */
export function rateUsage(db: Db, queue: string, rate: RateLimit | null, now: number): RateUsage | null {
  if (rate === null) return null;
  if (!rate.perKey) return windowOf(db, queue, '', rate, now);
  const busiest = stmt(db, S.BUSIEST_RATE_KEY).get(queue, now - rate.periodSeconds * 1000) as { rate_key: string } | undefined;
  return windowOf(db, queue, busiest?.rate_key ?? '', rate, now);
}

/** A queue row's rate columns. */
export interface RateRow {
  rate_limit: number | null;
  rate_period_s: number | null;
  rate_per_key: number;
}

/** A queue row's rate limit (null: none). */
export const rateOf = (r: RateRow | undefined): RateLimit | null =>
  r && r.rate_limit !== null && r.rate_period_s !== null
    ? { limit: r.rate_limit, periodSeconds: r.rate_period_s, perKey: r.rate_per_key === 1 }
    : null;

export function rateWindow(shared: Shared, queue: string, key: string | null): Promise<RateUsage | null> {
  return read(() => {
    const rate = rateOf(stmt(shared.db, S.QUEUE_RATE).get(queue) as RateRow | undefined);
    return rate === null ? null : windowOf(shared.db, queue, rateKeyOf(rate, key), rate, Date.now());
  });
}

export function queueKeys(shared: Shared, queue: string, limit: number): Promise<KeyUsage[]> {
  return read(() => {
    const n = Math.min(500, Math.max(1, Math.floor(limit)));
    return (stmt(shared.db, S.QUEUE_KEYS).all(Date.now(), queue, n) as { key: string; running: number; pending: number }[]).map((r) => ({
      key: r.key,
      running: r.running,
      pending: r.pending,
    }));
  });
}

/** Housekeeping: rows of keys with no pending or running task, slots of queues no longer rate limited or out of every window. */
export function pruneThrottle(db: Db, now: number): void {
  stmt(db, S.PRUNE_KEYS).run();
  stmt(db, S.PRUNE_SLOTS).run(now);
}

/** In how many ms the earliest start in a rate window of a queue with pending tasks leaves it (null: none). */
export function nextRateOpening(shared: Shared, queues: string[] | null): Promise<number | null> {
  return read(() => {
    const now = Date.now();
    const r = stmt(shared.db, S.NEXT_RATE_OPENING).get({ now, queues: queues?.length ? JSON.stringify(queues) : null }) as {
      ms: number | null;
    };
    return r.ms === null ? null : Math.max(0, r.ms);
  });
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { rateWindow, queueKeys } satisfies Slice<Shared, ReadModel>;

/** this module's part of the WorkerPort */
export const workerSlice = { nextRateOpening } satisfies Slice<Shared, WorkerPort>;
