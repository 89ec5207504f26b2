// History: per-minute rollups per (queue, command), kept 30 days, and the fixed-bucket histograms their
// percentiles come from. The stores keep the counts; this file holds the shapes and the arithmetic both
// dialects and the front door share (no SQL, no I/O).
import { HANDLER_NAME, PROCEDURE_NAME } from './limits';

/** How long per-minute rollups (and the 15-minute rollups made of them) are kept. */
export const HISTORY_KEEP_MS = 30 * 24 * 3600_000;
/** The grain of the rolled table (15 minutes): long ranges read it instead of the per-minute rows. */
export const ROLL_MS = 15 * 60_000;
/** A 15-minute period is rolled once it ended this long ago (late commits of that period have landed). */
export const ROLL_DELAY_MS = 2 * 60_000;
/** The longest command name the history keeps (procedure names fit; longer ones are cut). */
export const HISTORY_COMMAND_MAX = 260;
/**
 * What the history calls a command: a handler's or procedure's name as it is; anything else — the text of
 * a `sql` task — is `(sql)`, so the history (and its Prometheus labels) stays bounded.
 */
export function historyCommand(command: string): string {
  if (command.length <= HISTORY_COMMAND_MAX && (HANDLER_NAME.test(command) || PROCEDURE_NAME.test(command))) return command;
  return '(sql)';
}

/** In the rolled table, the queue or command of a row that sums over all of them. */
export const ALL = '';

/**
 * Upper bounds (ms, inclusive) of the histogram buckets of durations and latencies; the last bucket is
 * open (+Inf). 18 buckets, roughly log-spaced from 1 ms to 30 min.
 */
export const HIST_BOUNDS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 300_000, 1_800_000];
export const HIST_BUCKETS = HIST_BOUNDS_MS.length + 1;

/** The bucket a value (ms) falls in. */
export function histBucket(ms: number): number {
  const v = Math.max(0, ms);
  for (let i = 0; i < HIST_BOUNDS_MS.length; i++) if (v <= HIST_BOUNDS_MS[i]!) return i;
  return HIST_BOUNDS_MS.length;
}

/**
 * The q-quantile (0..1) of a histogram, interpolated linearly inside its bucket and capped by the
 * largest value seen (`max`); null for an empty histogram.
 */
export function histQuantile(counts: readonly number[], q: number, max: number | null = null): number | null {
  let total = 0;
  for (const c of counts) total += c;
  if (total <= 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (c <= 0) continue;
    if (seen + c >= rank) {
      const lo = i === 0 ? 0 : HIST_BOUNDS_MS[i - 1]!;
      const hi = i < HIST_BOUNDS_MS.length ? HIST_BOUNDS_MS[i]! : Math.max(max ?? lo * 2, lo);
      const v = lo + ((hi - lo) * (rank - seen)) / c;
      const capped = max !== null ? Math.min(v, max) : v;
      return Math.round(capped);
    }
    seen += c;
  }
  return max;
}

/** What a history read asks: [from, to) in buckets of `bucketMs`, optionally one queue and/or command. */
export interface HistoryQuery {
  from: Date;
  to: Date;
  bucketMs: number;
  queue?: string;
  command?: string;
}

/** One bucket of a history read; null where the bucket holds no data (a gap, not a zero). */
export interface HistoryBucket {
  /** the bucket's start */
  at: Date;
  enqueued: number | null;
  started: number | null;
  succeeded: number | null;
  /** failed attempts (retried or not) */
  failed: number | null;
  /** tasks that went dead (their last failed attempt) */
  dead: number | null;
  durationAvgMs: number | null;
  durationP50Ms: number | null;
  durationP95Ms: number | null;
  durationMaxMs: number | null;
  latencyAvgMs: number | null;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  latencyMaxMs: number | null;
  /** pending tasks sampled in the bucket (the per-second series, kept 24 h; unfiltered reads only) */
  depth: number | null;
}

export interface HistoryView {
  buckets: HistoryBucket[];
  /** queues and commands seen in the kept history */
  queues: string[];
  commands: string[];
}

/** Per-queue succeeded counts per bucket over [from, to) (the Queues page's sparklines). */
export interface QueueThroughput {
  queue: string;
  /** one count per bucket, oldest first */
  counts: number[];
}

/**
 * Cumulative counts since history began (never pruned): the Prometheus counters, read at every scrape.
 * The counts per (queue, command); the histograms per queue only (what /metrics exposes), so a scrape
 * reads five numbers per (queue, command) and the wide histogram columns once per queue.
 */
export interface HistoryTotals {
  commands: CommandTotals[];
  queues: QueueHistogramTotals[];
}

/** The counts of one (queue, command). */
export interface CommandTotals {
  queue: string;
  command: string;
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  dead: number;
}

/** The duration and start-latency histograms of one queue, over all its commands. */
export interface QueueHistogramTotals {
  queue: string;
  /** attempts started: the latency histogram's count */
  started: number;
  durationCount: number;
  durationSumMs: number;
  /** per histogram bucket (HIST_BOUNDS_MS), not cumulative */
  durationBuckets: number[];
  latencySumMs: number;
  latencyBuckets: number[];
}

/** The five counters of /metrics, in the order the stores read them per (queue, command). */
export const COUNT_COLS = ['enqueued', 'started', 'succeeded', 'failed', 'dead'] as const;

/** A queue's histograms from its sums over all its commands. */
export function queueHistograms(queue: string, s: HistorySums): QueueHistogramTotals {
  return {
    queue,
    started: s.started,
    durationCount: s.durN,
    durationSumMs: s.durSum,
    durationBuckets: s.dur,
    latencySumMs: s.latSum,
    latencyBuckets: s.lat,
  };
}

/** A row of summed counters (what a store's aggregate read returns), turned into a bucket by `toBucket`. */
export interface HistorySums {
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  dead: number;
  durN: number;
  durSum: number;
  durMax: number;
  latSum: number;
  latMax: number;
  dur: number[];
  lat: number[];
}

export function emptySums(): HistorySums {
  return {
    enqueued: 0,
    started: 0,
    succeeded: 0,
    failed: 0,
    dead: 0,
    durN: 0,
    durSum: 0,
    durMax: 0,
    latSum: 0,
    latMax: 0,
    dur: new Array<number>(HIST_BUCKETS).fill(0),
    lat: new Array<number>(HIST_BUCKETS).fill(0),
  };
}

export function addSums(a: HistorySums, b: HistorySums): void {
  a.enqueued += b.enqueued;
  a.started += b.started;
  a.succeeded += b.succeeded;
  a.failed += b.failed;
  a.dead += b.dead;
  a.durN += b.durN;
  a.durSum += b.durSum;
  a.durMax = Math.max(a.durMax, b.durMax);
  a.latSum += b.latSum;
  a.latMax = Math.max(a.latMax, b.latMax);
  for (let i = 0; i < HIST_BUCKETS; i++) {
    a.dur[i]! += b.dur[i] ?? 0;
    a.lat[i]! += b.lat[i] ?? 0;
  }
}

/** A bucket from its sums; a bucket without sums is a gap (all null). */
export function toBucket(at: Date, s: HistorySums | undefined, depth: number | null = null): HistoryBucket {
  if (!s) {
    return {
      at,
      enqueued: null,
      started: null,
      succeeded: null,
      failed: null,
      dead: null,
      durationAvgMs: null,
      durationP50Ms: null,
      durationP95Ms: null,
      durationMaxMs: null,
      latencyAvgMs: null,
      latencyP50Ms: null,
      latencyP95Ms: null,
      latencyMaxMs: null,
      depth,
    };
  }
  const hasDur = s.durN > 0;
  const hasLat = s.started > 0;
  return {
    at,
    enqueued: s.enqueued,
    started: s.started,
    succeeded: s.succeeded,
    failed: s.failed,
    dead: s.dead,
    durationAvgMs: hasDur ? Math.round(s.durSum / s.durN) : null,
    durationP50Ms: hasDur ? histQuantile(s.dur, 0.5, s.durMax) : null,
    durationP95Ms: hasDur ? histQuantile(s.dur, 0.95, s.durMax) : null,
    durationMaxMs: hasDur ? s.durMax : null,
    latencyAvgMs: hasLat ? Math.round(s.latSum / s.started) : null,
    latencyP50Ms: hasLat && s.lat.some((c) => c > 0) ? histQuantile(s.lat, 0.5, s.latMax) : null,
    latencyP95Ms: hasLat && s.lat.some((c) => c > 0) ? histQuantile(s.lat, 0.95, s.latMax) : null,
    latencyMaxMs: hasLat ? s.latMax : null,
    depth,
  };
}

/** The start of every bucket of [from, to), aligned to multiples of `bucketMs` since the epoch. */
export function bucketStarts(fromMs: number, toMs: number, bucketMs: number): number[] {
  const out: number[] = [];
  for (let t = Math.floor(fromMs / bucketMs) * bucketMs; t < toMs; t += bucketMs) out.push(t);
  return out;
}

/** The column names of the histogram buckets in the rollup tables: d0…d17 (durations), l0…l17 (latencies). */
export const DUR_COLS = Array.from({ length: HIST_BUCKETS }, (_, i) => `d${i}`);
export const LAT_COLS = Array.from({ length: HIST_BUCKETS }, (_, i) => `l${i}`);
/** Every counter column of a rollup row, in the order the stores bind and read them. */
export const SUM_COLS = [
  'enqueued',
  'started',
  'succeeded',
  'failed',
  'dead',
  'dur_n',
  'dur_sum',
  'dur_max',
  'lat_sum',
  'lat_max',
  ...DUR_COLS,
  ...LAT_COLS,
];

/** A row of SUM_COLS values (any object keyed by those names) as sums. */
export function sumsOfRow(r: Record<string, unknown>): HistorySums {
  const n = (k: string) => Number(r[k] ?? 0);
  return {
    enqueued: n('enqueued'),
    started: n('started'),
    succeeded: n('succeeded'),
    failed: n('failed'),
    dead: n('dead'),
    durN: n('dur_n'),
    durSum: n('dur_sum'),
    durMax: n('dur_max'),
    latSum: n('lat_sum'),
    latMax: n('lat_max'),
    dur: DUR_COLS.map(n),
    lat: LAT_COLS.map(n),
  };
}

/** Sums as the values of SUM_COLS, in order. */
export function rowOfSums(s: HistorySums): number[] {
  return [s.enqueued, s.started, s.succeeded, s.failed, s.dead, s.durN, s.durSum, s.durMax, s.latSum, s.latMax, ...s.dur, ...s.lat];
}
