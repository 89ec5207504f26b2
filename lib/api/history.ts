// History views: a range (15 min … 30 days) bucketed to its size, optionally of one queue or command,
// over the per-minute rollups (the per-second series for the 15-minute overview); and the per-queue
// throughput sparklines of the Queues page.
import { z } from 'zod';
import type { HistoryBucket } from '../engine/history';
import type { ReadModel } from '../engine/ports';
import { parseWith } from '../engine/validation';

export const HISTORY_RANGES = ['15m', '1h', '24h', '7d', '30d'] as const;
export type HistoryRange = (typeof HISTORY_RANGES)[number];

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Each range's span and bucket: ~60–180 buckets whatever the range. */
export const RANGE_SPEC: Record<HistoryRange, { spanMs: number; bucketMs: number; label: string }> = {
  '15m': { spanMs: 15 * MIN, bucketMs: 5_000, label: '15 min' },
  '1h': { spanMs: HOUR, bucketMs: MIN, label: '1 h' },
  '24h': { spanMs: 24 * HOUR, bucketMs: 15 * MIN, label: '24 h' },
  '7d': { spanMs: 7 * 24 * HOUR, bucketMs: HOUR, label: '7 d' },
  '30d': { spanMs: 30 * 24 * HOUR, bucketMs: 6 * HOUR, label: '30 d' },
};

export const historyRequest = z.strictObject({
  range: z.enum(HISTORY_RANGES).default('1h'),
  queue: z.string().trim().min(1).max(200).optional(),
  command: z.string().trim().min(1).max(400).optional(),
});
export type HistoryRequest = z.input<typeof historyRequest>;

export interface HistoryBucketJson extends Omit<HistoryBucket, 'at'> {
  at: string;
}

export interface HistoryJson {
  range: HistoryRange;
  bucketMs: number;
  from: string;
  to: string;
  queue: string | null;
  command: string | null;
  buckets: HistoryBucketJson[];
  queues: string[];
  commands: string[];
}

export interface SparklinesJson {
  range: HistoryRange;
  bucketMs: number;
  from: string;
  queues: { queue: string; counts: number[] }[];
}

/** [from, to) of a range ending with the bucket that holds `now`. */
export function rangeWindow(range: HistoryRange, bucketMs: number, now: number): { from: number; to: number } {
  const to = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  return { from: to - Math.ceil(RANGE_SPEC[range].spanMs / bucketMs) * bucketMs, to };
}

/** The history of a range; a queue or command narrows it (the per-second grain is global, so they read minutes). */
export async function historyJson(reads: ReadModel, input: HistoryRequest, now = Date.now()): Promise<HistoryJson> {
  const q = parseWith(historyRequest, input);
  const spec = RANGE_SPEC[q.range];
  const filtered = q.queue !== undefined || q.command !== undefined;
  const bucketMs = filtered ? Math.max(MIN, spec.bucketMs) : spec.bucketMs;
  const { from, to } = rangeWindow(q.range, bucketMs, now);
  const v = await reads.history({ from: new Date(from), to: new Date(to), bucketMs, queue: q.queue, command: q.command });
  return {
    range: q.range,
    bucketMs,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    queue: q.queue ?? null,
    command: q.command ?? null,
    buckets: v.buckets.map((b) => ({ ...b, at: b.at.toISOString() })),
    queues: v.queues,
    commands: v.commands,
  };
}

const sparkRequest = z.strictObject({ range: z.enum(['1h', '24h']).default('1h') });

/** Succeeded per queue over the last hour (1-minute buckets) or day (15-minute buckets). */
export async function sparklinesJson(reads: ReadModel, input: { range?: string }, now = Date.now()): Promise<SparklinesJson> {
  const q = parseWith(sparkRequest, input);
  const bucketMs = q.range === '1h' ? MIN : 15 * MIN;
  const { from, to } = rangeWindow(q.range, bucketMs, now);
  const rows = await reads.queueThroughput(new Date(from), new Date(to), bucketMs);
  return { range: q.range, bucketMs, from: new Date(from).toISOString(), queues: rows };
}
