// Interval arithmetic over ExecutionLog attempts: how many ran at once.
export interface Interval {
  start: number;
  end: number;
}

export function intervalOf(a: { startedAt: Date | string | null; endedAt: Date | string | null }): Interval {
  const start = new Date(a.startedAt!).getTime();
  const end = a.endedAt ? new Date(a.endedAt).getTime() : Number.POSITIVE_INFINITY;
  return { start, end };
}

/** The most intervals [start, end) alive at one instant, over the instants in [from, to). */
export function maxOverlap(intervals: Interval[], from = -Infinity, to = Infinity): number {
  const events: [number, number][] = [];
  for (const i of intervals) {
    const s = Math.max(i.start, from);
    const e = Math.min(i.end, to);
    if (s >= e) continue;
    events.push([s, 1], [e, -1]);
  }
  // ends sort before starts at the same instant: [a, b) and [b, c) do not overlap
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of events) {
    cur += d;
    if (cur > max) max = cur;
  }
  return max;
}
