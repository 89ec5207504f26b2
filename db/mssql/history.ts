// History on SQL Server: the quarter-hour roll (housekeeping), the reads over the rollups (slots summed),
// the cumulative totals, pruning. The per-minute rows are written by every writing batch's TALLY.
import {
  ALL,
  addSums,
  bucketStarts,
  emptySums,
  HISTORY_KEEP_MS,
  ROLL_DELAY_MS,
  ROLL_MS,
  sumsOfRow,
  toBucket,
  type HistoryQuery,
  type HistorySums,
  type HistoryTotals,
  type HistoryView,
  type QueueThroughput,
  queueHistograms,
} from '../../lib/engine/history';
import { sql, type Param, type Shared } from './connection';
import * as S from './sql/history';
import { carryDepth, DEPTH_LOOKBACK_S } from '../shared/depth';
import type { ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

const nextRoll = new WeakMap<Shared, number>();

/** Housekeeping's call, each second: roll once a quarter hour is due (this process's clock decides when to ask). */
export async function rollHistoryIfDue(shared: Shared): Promise<void> {
  const now = Date.now();
  if (now < (nextRoll.get(shared) ?? 0)) return;
  const rolled = await rollHistory(shared);
  // a backlog is caught up 4 h per second; otherwise ask again when the next quarter hour is due
  nextRoll.set(shared, rolled >= 4 * 3600_000 ? 0 : Math.floor(now / ROLL_MS) * ROLL_MS + ROLL_MS + ROLL_DELAY_MS);
}

/** Roll the finished quarter hours not rolled yet (at most 4 h of them per call); returns the span rolled (ms). */
export async function rollHistory(shared: Shared, maxMs = 4 * 3600_000): Promise<number> {
  const r = await shared.write<{ rolled_ms: number | string }>(S.ROLL_HISTORY, [
    ['roll_ms', sql.BigInt, ROLL_MS],
    ['delay_ms', sql.BigInt, ROLL_DELAY_MS],
    ['max_ms', sql.BigInt, maxMs],
  ]);
  return Number(r.recordset?.[0]?.rolled_ms ?? 0);
}

export async function pruneHistory(shared: Shared): Promise<void> {
  await shared.write(S.PRUNE_HISTORY, [['before_ms', sql.BigInt, Date.now() - HISTORY_KEEP_MS]]);
}

function collect(into: Map<number, HistorySums>, rows: Record<string, unknown>[]): void {
  for (const r of rows) {
    const b = Number(r.b);
    const s = sumsOfRow(r);
    const have = into.get(b);
    if (have) addSums(have, s);
    else into.set(b, s);
  }
}

/** The depth sample in force at `from` (ms), if one is recent enough (db/shared/depth.ts). */
export async function depthBefore(shared: Shared, from: number): Promise<number | null> {
  const sec = Math.floor(from / 1000);
  const r = await shared.query<{ depth: number | string }>(S.DEPTH_BEFORE, [
    ['from_sec', sql.BigInt, sec],
    ['lookback_sec', sql.BigInt, sec - DEPTH_LOOKBACK_S],
  ]);
  const d = r.recordset[0]?.depth;
  return d === undefined || d === null ? null : Number(d);
}

async function rolledUntil(shared: Shared): Promise<number> {
  const r = await shared.query<{ rolled_until: number | string }>(S.ROLLED_UNTIL);
  return Number(r.recordset[0]?.rolled_until ?? 0);
}

export async function history(shared: Shared, q: HistoryQuery): Promise<HistoryView> {
  const from = q.from.getTime();
  const to = q.to.getTime();
  const sums = new Map<number, HistorySums>();
  const depth = new Map<number, number>();
  const filtered = q.queue !== undefined || q.command !== undefined;
  let size = q.bucketMs;
  if (size < 60_000 && !filtered) {
    const bs = Math.max(1, Math.round(size / 1000));
    const rows = (
      await shared.query<Record<string, number | string | null>>(S.READ_SECONDS, [
        ['bucket_s', sql.BigInt, bs],
        ['from_sec', sql.BigInt, Math.floor(from / 1000)],
        ['to_sec', sql.BigInt, Math.ceil(to / 1000)],
      ])
    ).recordset;
    for (const r of rows) {
      const s = emptySums();
      s.enqueued = Number(r.enqueued ?? 0);
      s.started = Number(r.started ?? 0);
      s.succeeded = Number(r.succeeded ?? 0);
      s.failed = Number(r.failed ?? 0);
      s.dead = Number(r.dead ?? 0);
      s.latSum = Number(r.lat_sum ?? 0);
      s.latMax = Number(r.lat_max ?? 0);
      sums.set(Number(r.b) * 1000, s);
      if (r.depth !== null && r.depth !== undefined) depth.set(Number(r.b) * 1000, Number(r.depth));
    }
    size = bs * 1000;
  } else {
    size = Math.max(60_000, Math.round(size / 60_000) * 60_000);
    const rolled = size % ROLL_MS === 0 ? await rolledUntil(shared) : 0;
    let minutesFrom = from;
    const reads: Promise<void>[] = [];
    if (rolled > from) {
      const end = Math.min(rolled, to);
      const params: Param[] = [
        ['bucket_ms', sql.BigInt, size],
        ['queue', sql.NVarChar(64), q.queue ?? ALL],
        ['command', sql.NVarChar(260), q.command ?? ALL],
        ['from_ms', sql.BigInt, from],
        ['to_ms', sql.BigInt, end],
      ];
      reads.push(shared.query<Record<string, unknown>>(S.READ_ROLLUP, params).then((r) => collect(sums, r.recordset)));
      minutesFrom = end;
    }
    if (minutesFrom < to) {
      const params: Param[] = [
        ['bucket_ms', sql.BigInt, size],
        ['from_ms', sql.BigInt, minutesFrom],
        ['to_ms', sql.BigInt, to],
        ['queue', sql.NVarChar(64), q.queue ?? null],
        ['command', sql.NVarChar(260), q.command ?? null],
      ];
      reads.push(shared.query<Record<string, unknown>>(S.READ_MINUTES, params).then((r) => collect(sums, r.recordset)));
    }
    if (!filtered && from >= Date.now() - 25 * 3600_000) {
      const params: Param[] = [
        ['bucket_s', sql.BigInt, size / 1000],
        ['from_sec', sql.BigInt, Math.floor(from / 1000)],
        ['to_sec', sql.BigInt, Math.ceil(to / 1000)],
      ];
      reads.push(
        shared.query<{ b: number | string; depth: number | string }>(S.READ_DEPTH, params).then((r) => {
          for (const x of r.recordset) depth.set(Number(x.b) * 1000, Number(x.depth));
        }),
      );
    }
    await Promise.all(reads);
  }
  const names = (await shared.query<{ queue: string; command: string }>(S.NAMES)).recordset;
  const starts = bucketStarts(from, to, size);
  // the sample in force at the start, read only when the first bucket has none of its own
  const seed = filtered || starts.length === 0 || depth.has(starts[0]!) ? null : await depthBefore(shared, from);
  const carried = filtered ? depth : carryDepth(starts, depth, seed);
  return {
    buckets: starts.map((t) => toBucket(new Date(t), sums.get(t), carried.get(t) ?? null)),
    queues: [...new Set(names.map((n) => n.queue))].sort(),
    commands: [...new Set(names.map((n) => n.command))].sort(),
  };
}

export async function queueThroughput(shared: Shared, from: Date, to: Date, bucketMs: number): Promise<QueueThroughput[]> {
  const size = Math.max(60_000, Math.round(bucketMs / 60_000) * 60_000);
  const starts = bucketStarts(from.getTime(), to.getTime(), size);
  const index = new Map(starts.map((t, i) => [t, i]));
  const rows = (
    await shared.query<{ queue: string; b: number | string; n: number | string }>(S.QUEUE_THROUGHPUT, [
      ['bucket_ms', sql.BigInt, size],
      ['from_ms', sql.BigInt, from.getTime()],
      ['to_ms', sql.BigInt, to.getTime()],
    ])
  ).recordset;
  const out = new Map<string, number[]>();
  for (const r of rows) {
    let counts = out.get(r.queue);
    if (!counts) out.set(r.queue, (counts = new Array<number>(starts.length).fill(0)));
    const i = index.get(Number(r.b));
    if (i !== undefined) counts[i]! += Number(r.n);
  }
  return [...out.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([queue, counts]) => ({ queue, counts }));
}

/** The cumulative counters of /metrics: five counts per (queue, command), the histograms per queue (S.TOTALS). */
export async function historyTotals(shared: Shared): Promise<HistoryTotals> {
  const sets = (await shared.query<Record<string, unknown>>(S.TOTALS)).recordsets as unknown as Record<string, unknown>[][];
  const [counts = [], perQueue = []] = sets;
  return {
    commands: counts.map((r) => ({
      queue: String(r.queue),
      command: String(r.command),
      enqueued: Number(r.enqueued ?? 0),
      started: Number(r.started ?? 0),
      succeeded: Number(r.succeeded ?? 0),
      failed: Number(r.failed ?? 0),
      dead: Number(r.dead ?? 0),
    })),
    queues: perQueue.map((r) => queueHistograms(String(r.queue), sumsOfRow(r))),
  };
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { history, queueThroughput, historyTotals } satisfies Slice<Shared, ReadModel>;
