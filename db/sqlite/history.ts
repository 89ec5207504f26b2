// History: the quarter-hour roll of the per-minute rollups (run by housekeeping), the reads over them,
// the cumulative totals, pruning. The per-minute rows themselves are written by the tally (tally.ts).
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
import type { Db, Shared } from './connection';
import * as S from './sql/history';
import { stmt } from './stmt';
import { carryDepth, DEPTH_LOOKBACK_S } from '../shared/depth';
import type { ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

/**
 * Roll finished quarter hours not rolled yet into HistoryRollup and HistoryTotals, at most `maxMs` (1 h) of
 * them per call (a backlog is caught up one hour a second, in short transactions); inside a write transaction.
 */
/** Returns the span rolled (ms; 0: nothing was due). */
export function rollHistory(db: Db, now: number, maxMs = 3600_000): number {
  let target = Math.floor((now - ROLL_DELAY_MS) / ROLL_MS) * ROLL_MS;
  let from = (stmt(db, S.ROLLED_UNTIL).get() as { rolled_until: number } | undefined)?.rolled_until ?? 0;
  if (from >= target) return 0;
  if (from === 0) {
    const first = (stmt(db, S.FIRST_MINUTE).get() as { t: number | null }).t;
    from = first === null ? target : Math.floor(first / ROLL_MS) * ROLL_MS;
  }
  target = Math.min(target, from + maxMs);
  if (from < target) {
    for (const sql of [S.ROLL_QUEUE_COMMAND, S.ROLL_QUEUE, S.ROLL_COMMAND, S.ROLL_ALL]) stmt(db, sql).run(ROLL_MS, from, target);
    stmt(db, S.ADD_TOTALS).run(from, target);
  }
  stmt(db, S.SET_ROLLED_UNTIL).run(target);
  return Math.max(0, target - from);
}

/** Whether a quarter hour is due to be rolled (a read: rollHistory writes). */
export function rollDue(db: Db, now: number): boolean {
  return rolledUntil(db) < Math.floor((now - ROLL_DELAY_MS) / ROLL_MS) * ROLL_MS;
}

/** Delete rollups older than the history keeps; inside a write transaction. */
export function pruneHistory(db: Db, now: number): void {
  stmt(db, S.PRUNE_MINUTES).run(now - HISTORY_KEEP_MS);
  stmt(db, S.PRUNE_ROLLUP).run(now - HISTORY_KEEP_MS);
}

/** The depth sample in force at `from` (ms), if one is recent enough (db/shared/depth.ts). */
export function depthBefore(db: Db, from: number): number | null {
  const sec = Math.floor(from / 1000);
  const r = stmt(db, S.DEPTH_BEFORE).get(sec, sec - DEPTH_LOOKBACK_S) as { depth: number } | undefined;
  return r ? Number(r.depth) : null;
}

function rolledUntil(db: Db): number {
  return (stmt(db, S.ROLLED_UNTIL).get() as { rolled_until: number } | undefined)?.rolled_until ?? 0;
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

export async function history(shared: Shared, q: HistoryQuery): Promise<HistoryView> {
  const db = shared.db;
  const from = q.from.getTime();
  const to = q.to.getTime();
  const bucket = q.bucketMs;
  const sums = new Map<number, HistorySums>();
  const depth = new Map<number, number>();
  const filtered = q.queue !== undefined || q.command !== undefined;
  if (bucket < 60_000 && !filtered) {
    // the per-second series: counts and latency avg/max (no histograms at this grain)
    const bs = Math.max(1, Math.round(bucket / 1000));
    const rows = stmt(db, S.READ_SECONDS).all(bs, Math.floor(from / 1000), Math.ceil(to / 1000)) as Record<string, number | null>[];
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
      if (r.depth !== null) depth.set(Number(r.b) * 1000, Number(r.depth));
    }
  } else {
    const size = Math.max(60_000, Math.round(bucket / 60_000) * 60_000);
    const rolled = size % ROLL_MS === 0 ? rolledUntil(db) : 0;
    let minutesFrom = from;
    if (rolled > from) {
      const end = Math.min(rolled, to);
      collect(sums, stmt(db, S.READ_ROLLUP).all(size, q.queue ?? ALL, q.command ?? ALL, from, end) as Record<string, unknown>[]);
      minutesFrom = end;
    }
    if (minutesFrom < to) {
      const qn = q.queue ?? null;
      const cn = q.command ?? null;
      collect(sums, stmt(db, S.READ_MINUTES).all(size, minutesFrom, to, qn, qn, cn, cn) as Record<string, unknown>[]);
    }
    // the depth samples (per second, kept 24 h): for ranges within them
    if (!filtered && from >= Date.now() - 25 * 3600_000) {
      const bs = size / 1000;
      const rows = stmt(db, S.READ_DEPTH).all(bs, bs, Math.floor(from / 1000), Math.ceil(to / 1000)) as { b: number; depth: number }[];
      for (const r of rows) depth.set(r.b * 1000, r.depth);
    }
    return view(db, from, to, size, sums, depth, q);
  }
  return view(db, from, to, bucket, sums, depth, q);
}

function view(
  db: Db,
  from: number,
  to: number,
  size: number,
  sums: Map<number, HistorySums>,
  depth: Map<number, number>,
  _q: HistoryQuery,
): HistoryView {
  const starts = bucketStarts(from, to, size);
  const filtered = _q.queue !== undefined || _q.command !== undefined;
  // the sample in force at the start, read only when the first bucket has none of its own
  const seed = filtered || starts.length === 0 || depth.has(starts[0]!) ? null : depthBefore(db, from);
  const carried = filtered ? depth : carryDepth(starts, depth, seed);
  const buckets = starts.map((t) => toBucket(new Date(t), sums.get(t), carried.get(t) ?? null));
  const { queues, commands } = names(db);
  return { buckets, queues, commands };
}

function names(db: Db): { queues: string[]; commands: string[] } {
  const q = new Set<string>();
  const c = new Set<string>();
  for (const r of stmt(db, S.NAMES).all(rolledUntil(db)) as { queue: string; command: string }[]) {
    q.add(r.queue);
    c.add(r.command);
  }
  return { queues: [...q].sort(), commands: [...c].sort() };
}

export async function queueThroughput(shared: Shared, from: Date, to: Date, bucketMs: number): Promise<QueueThroughput[]> {
  const size = Math.max(60_000, Math.round(bucketMs / 60_000) * 60_000);
  const starts = bucketStarts(from.getTime(), to.getTime(), size);
  const index = new Map(starts.map((t, i) => [t, i]));
  const out = new Map<string, number[]>();
  const rows = stmt(shared.db, S.QUEUE_THROUGHPUT).all(size, from.getTime(), to.getTime()) as { queue: string; b: number; n: number }[];
  for (const r of rows) {
    let counts = out.get(r.queue);
    if (!counts) out.set(r.queue, (counts = new Array<number>(starts.length).fill(0)));
    const i = index.get(r.b);
    if (i !== undefined) counts[i]! += r.n;
  }
  return [...out.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([queue, counts]) => ({ queue, counts }));
}

/**
 * The cumulative counters of /metrics: per (queue, command) its five counts, per queue its histograms, each
 * the rolled totals plus the minutes not rolled yet — rows of HistoryTotals and of the last quarter hour,
 * whatever the history holds.
 */
export async function historyTotals(shared: Shared): Promise<HistoryTotals> {
  const db = shared.db;
  // one read transaction: a roll between the reads would count its quarter twice
  return db.transaction(() => {
    const from = rolledUntil(db);
    const rows = stmt(db, S.COMMAND_TOTALS).raw(true).all(from) as (string | number)[][];
    const commands = rows.map(([queue, command, enqueued, started, succeeded, failed, dead]) => ({
      queue: String(queue),
      command: String(command),
      enqueued: Number(enqueued),
      started: Number(started),
      succeeded: Number(succeeded),
      failed: Number(failed),
      dead: Number(dead),
    }));
    const perQueue = new Map<string, HistorySums>();
    for (const r of [...stmt(db, S.QUEUE_TOTALS).all(), ...stmt(db, S.QUEUE_UNROLLED).all(from)] as Record<string, unknown>[]) {
      const have = perQueue.get(String(r.queue));
      if (have) addSums(have, sumsOfRow(r));
      else perQueue.set(String(r.queue), sumsOfRow(r));
    }
    const queues = [...perQueue].map(([queue, s]) => queueHistograms(queue, s));
    return { commands, queues };
  })();
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { history, queueThroughput, historyTotals } satisfies Slice<Shared, ReadModel>;
