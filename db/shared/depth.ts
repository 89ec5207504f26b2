// The pending-depth gauge (Metrics.depth), the same in both stores: a sample is written only when the depth changed
// since the store's last one, or that one is DEPTH_REFRESH_MS old — an idle store writes none — so a second without a
// sample has the depth of the last sample before it, and readers carry it forward (seeded with the last sample before
// their range, looked for at most DEPTH_LOOKBACK_S back: a refresh is always that recent).

/** A sample is written at least this often while a store samples, changed or not. */
export const DEPTH_REFRESH_MS = 3600_000;

/** How far back a reader looks for the sample in force at the start of its range (s). */
export const DEPTH_LOOKBACK_S = DEPTH_REFRESH_MS / 1000 + 120;

/** Each store's last sample (keyed by the store's shared state). */
export const lastDepth = new WeakMap<object, { depth: number; at: number }>();

/** Whether `depth`, read now, is to be written: it changed since the store's last sample, or that one is old. */
export function depthSample(store: object, depth: number, now: number): boolean {
  const last = lastDepth.get(store);
  return !last || last.depth !== depth || now - last.at >= DEPTH_REFRESH_MS;
}

/**
 * Each bucket's depth (by bucket start, ascending `starts`): its own sample's, else the one before it — the first
 * bucket's from `seed` (the last sample before the range; null: none known).
 */
export function carryDepth(starts: readonly number[], samples: ReadonlyMap<number, number>, seed: number | null): Map<number, number> {
  const out = new Map<number, number>();
  let last = seed;
  for (const t of starts) {
    last = samples.get(t) ?? last;
    if (last !== null) out.set(t, last);
  }
  return out;
}

/** What withDepthSeed needs of a metric point (MetricPoint). */
interface DepthPoint {
  at: Date;
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  latencySumMs: number;
  latencyMaxMs: number;
  depth: number | null;
}

/**
 * The per-second series from `since` with the depth in force at its start: when its first second has no sample, a
 * point at `since` (no counts) carrying the last sample before it (`before`, read only then), which readers carry on.
 */
export function withDepthSeed<P extends DepthPoint>(points: P[], since: Date, before: () => number | null): P[] {
  const start = Math.floor(since.getTime() / 1000) * 1000;
  const first = points[0];
  if (first && first.at.getTime() === start && first.depth !== null) return points;
  const depth = before();
  if (depth === null) return points;
  if (first && first.at.getTime() === start) return [{ ...first, depth }, ...points.slice(1)];
  const seed = { at: new Date(start), enqueued: 0, started: 0, succeeded: 0, failed: 0, latencySumMs: 0, latencyMaxMs: 0, depth } as P;
  return [seed, ...points];
}
