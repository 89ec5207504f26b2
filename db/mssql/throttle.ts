// Throttle on SQL Server, read side: a queue's concurrency keys by running and pending tasks, and a rate
// window now (sql/keys.ts). The writes are the claim's (sql/claim.ts), the enqueue's and setQueue's.
import type { ReadModel } from '../../lib/engine/ports';
import type { KeyUsage, RateUsage } from '../../lib/engine/types';
import type { Slice } from '../shared/bind';
import { sql, type Shared } from './connection';
import { id, type Id } from './rows';
import * as S from './sql/keys';

/** The most keys one read returns. */
const MAX_KEYS = 1000;

export async function queueKeys(shared: Shared, queue: string, limit: number): Promise<KeyUsage[]> {
  const n = Math.min(MAX_KEYS, Math.max(1, Math.floor(limit)));
  const r = await shared.query<{ concurrency_key: string; running: Id; pending: Id }>(S.QUEUE_KEYS, [
    ['queue', sql.NVarChar(64), queue],
    ['limit', sql.Int, n],
  ]);
  return r.recordset.map((k) => ({ key: k.concurrency_key, running: id(k.running), pending: id(k.pending) }));
}

export interface RateRow {
  rate_limit: number;
  rate_period_s: number;
  rate_per_key: boolean;
  started: number;
  next_at: Date | null;
}

export const rateUsage = (r: RateRow): RateUsage => ({
  limit: r.rate_limit,
  periodSeconds: r.rate_period_s,
  perKey: Boolean(r.rate_per_key),
  started: r.started,
  nextAt: r.next_at,
});

export async function rateWindow(shared: Shared, queue: string, key: string | null): Promise<RateUsage | null> {
  const r = await shared.query<RateRow>(S.RATE_WINDOW, [
    ['queue', sql.NVarChar(64), queue],
    ['key', sql.NVarChar(200), key],
  ]);
  const row = r.recordset[0];
  return row ? rateUsage(row) : null;
}

/** In how many ms the earliest start in a rate window of a queue with pending tasks leaves it (null: none). */
export async function nextRateOpening(shared: Shared, queues: string[] | null): Promise<number | null> {
  const r = await shared.query<{ ms: Id | null }>(S.NEXT_RATE_OPENING, [
    ['queues', sql.NVarChar(sql.MAX), queues?.length ? JSON.stringify(queues) : null],
  ]);
  const ms = r.recordset[0]?.ms;
  return ms == null ? null : Math.max(0, id(ms));
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { queueKeys, rateWindow } satisfies Slice<Shared, ReadModel>;
