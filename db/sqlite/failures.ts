// The Failed & poison page's groups on SQLite: dead tasks by failure fingerprint (lib/engine/fingerprint.ts),
// command and queue, with first and last seen, a 24-hour trend and the newest task's message, offset-paged.
// Dead tasks without a fingerprint (settled before migration 10, or made dead by a lease rescue) are
// fingerprinted here before grouping, a bounded number per read.
import { fingerprint } from '../../lib/engine/fingerprint';
import type { FailureGroupQuery, FingerprintGroup, Page } from '../../lib/engine/types';
import { read, type Shared } from './connection';
import { failureWhere } from './reads';
import * as S from './sql/failures';
import { stmt } from './stmt';
import type { ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;
/** dead tasks fingerprinted per read at most */
const BACKFILL = 5000;
const HOUR = 3_600_000;
export const TREND_HOURS = 24;

interface GroupRow {
  fingerprint: string;
  command: string;
  queue: string;
  count: number;
  first_at: number | null;
  last_at: number | null;
  last_id: number;
}

/** Fingerprint dead tasks that have none yet; how many. */
export async function backfill(shared: Shared, limit = BACKFILL): Promise<number> {
  const rows = await read(
    () => stmt(shared.db, S.UNPRINTED).all(limit) as { id: number; error_number: number | null; error_message: string | null }[],
  );
  if (rows.length === 0) return 0;
  return shared.tx(() => {
    const up = stmt(shared.db, S.SET_FINGERPRINT);
    for (const r of rows) up.run(fingerprint(r.error_number, r.error_message), r.id);
    return rows.length;
  });
}

const key = (r: { fingerprint: string; command: string; queue: string }) => `${r.fingerprint}\u0000${r.command}\u0000${r.queue}`;

export async function failureGroupPage(shared: Shared, f: FailureGroupQuery): Promise<Page<FingerprintGroup>> {
  await backfill(shared);
  const limit = Math.min(PAGE_MAX, Math.max(1, Math.floor(f.limit ?? PAGE_DEFAULT)));
  const offset = Math.max(0, Math.floor(f.cursor ?? 0));
  return read(() => {
    const db = shared.db;
    const { filters, params } = failureWhere(f);
    const rows = stmt(db, S.groupPageSql(filters)).all(...params, limit + 1, offset) as GroupRow[];
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const since = (Math.floor(Date.now() / HOUR) - (TREND_HOURS - 1)) * HOUR;
    const trends = new Map<string, number[]>();
    if (page.length) {
      const wanted = new Set(page.map(key));
      const buckets = stmt(db, S.groupTrendSql(filters)).all(since, ...params, since) as (GroupRow & { bucket: number; n: number })[];
      for (const b of buckets) {
        const k = key(b);
        if (!wanted.has(k) || b.bucket < 0 || b.bucket >= TREND_HOURS) continue;
        let t = trends.get(k);
        if (!t) trends.set(k, (t = new Array<number>(TREND_HOURS).fill(0)));
        t[b.bucket] = (t[b.bucket] ?? 0) + b.n;
      }
    }
    const items = page.map((r): FingerprintGroup => {
      const s = stmt(db, S.GROUP_SAMPLE).get(r.last_id) as { token: string; error_number: number | null; error_message: string | null };
      return {
        fingerprint: r.fingerprint,
        command: r.command,
        queue: r.queue,
        count: r.count,
        message: s.error_message ?? '',
        errorNumber: s.error_number,
        sampleToken: s.token,
        firstAt: new Date(r.first_at ?? 0),
        lastAt: new Date(r.last_at ?? 0),
        trend: trends.get(key(r)) ?? new Array<number>(TREND_HOURS).fill(0),
      };
    });
    return { items, nextCursor: more ? offset + limit : null };
  });
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { failureGroupPage } satisfies Slice<Shared, ReadModel>;
