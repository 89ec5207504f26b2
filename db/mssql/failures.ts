// The Failed & poison page's groups on SQL Server: dead tasks by failure fingerprint, command and queue,
// offset-paged, with first and last seen, a 24-hour trend and the newest task's message. Dead tasks without
// a fingerprint (settled before migration 12, or made dead by a lease rescue) are fingerprinted first.
import { fingerprint } from '../../lib/engine/fingerprint';
import type { FailureGroupQuery, FingerprintGroup, Page } from '../../lib/engine/types';
import { sql, type Shared } from './connection';
import { failureParams } from './reads';
import { id, token } from './rows';
import * as S from './sql/failures';
import type { ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;
const HOUR = 3_600_000;
const TREND_HOURS = 24;

/** Fingerprint dead tasks that have none yet (at most 5,000 per call); how many. */
export async function backfill(shared: Shared): Promise<number> {
  const rows = (await shared.query<{ id: unknown; error_number: number | null; error_message: string | null }>(S.UNPRINTED)).recordset;
  if (rows.length === 0) return 0;
  const list = rows.map((r) => ({ id: id(r.id as never), fingerprint: fingerprint(r.error_number, r.error_message) }));
  await shared.write(S.SET_FINGERPRINTS, [['prints', sql.NVarChar(sql.MAX), JSON.stringify(list)]]);
  return rows.length;
}

interface GroupRow {
  ord: number;
  fingerprint: string | null;
  command: string;
  queue: string;
  n: number;
  first_at: Date | null;
  last_at: Date | null;
  sample: string;
  error_number: number | null;
  error_message: string | null;
}

export async function failureGroupPage(shared: Shared, f: FailureGroupQuery): Promise<Page<FingerprintGroup>> {
  await backfill(shared);
  const limit = Math.min(PAGE_MAX, Math.max(1, Math.floor(f.limit ?? PAGE_DEFAULT)));
  const offset = Math.max(0, Math.floor(f.cursor ?? 0));
  const since = new Date((Math.floor(Date.now() / HOUR) - (TREND_HOURS - 1)) * HOUR);
  const { shape, params } = failureParams(f);
  const r = await shared.query(S.groupPageSql(shape), [
    ...params,
    ['offset', sql.Int, offset],
    ['limit', sql.Int, limit + 1],
    ['trend_since', sql.DateTime2(3), since],
  ]);
  const sets = r.recordsets as unknown as [GroupRow[], { ord: number; bucket: number; n: number }[]];
  const rows = sets[0] ?? [];
  const trends = new Map<number, number[]>();
  for (const b of sets[1] ?? []) {
    if (b.bucket < 0 || b.bucket >= TREND_HOURS) continue;
    let t = trends.get(b.ord);
    if (!t) trends.set(b.ord, (t = new Array<number>(TREND_HOURS).fill(0)));
    t[b.bucket] = (t[b.bucket] ?? 0) + b.n;
  }
  const items = rows.slice(0, limit).map(
    (g): FingerprintGroup => ({
      fingerprint: (g.fingerprint ?? '').trim(),
      command: g.command,
      queue: g.queue,
      count: id(g.n as never),
      message: g.error_message ?? '',
      errorNumber: g.error_number,
      sampleToken: token(g.sample.trim()),
      firstAt: g.first_at ?? new Date(0),
      lastAt: g.last_at ?? new Date(0),
      trend: trends.get(g.ord) ?? new Array<number>(TREND_HOURS).fill(0),
    }),
  );
  return { items, nextCursor: rows.length > limit ? offset + limit : null };
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { failureGroupPage } satisfies Slice<Shared, ReadModel>;
