'use client';
// The Overview's activity: a range selector (15 min … 30 days) over the history (per-second series at
// 15 min, per-minute rollups beyond), with throughput, latency, duration and depth charts bucketed to the
// range (ActivityCharts); bucketPoints merges per-second points for callers that hold their own.
import { memo, useMemo, useState } from 'react';
import type { MetricPointJson } from '../api';
import { DepthLine, DurationLines, LatencyLines, RangePicker, ThroughputBars, toPoints } from '../history/HistoryCharts';
import { useHistory, type HistoryRange } from '../history/useHistory';
import { ErrorState, LoadingState } from '../ui/States';

export interface ChartPoint {
  t: number;
  succeeded: number;
  failed: number;
  latencyAvgMs: number | null;
  latencyMaxMs: number | null;
  depth: number | null;
}

/** Merge per-second points into buckets of `size` seconds; counts become per-second rates. */
export function bucketPoints(points: MetricPointJson[], size: number): ChartPoint[] {
  const out: ChartPoint[] = [];
  for (let i = 0; i < points.length; i += size) {
    const chunk = points.slice(i, i + size);
    const first = chunk[0];
    if (!first) continue;
    let succeeded = 0,
      failed = 0,
      started = 0,
      latSum = 0,
      latMax: number | null = null,
      depth: number | null = null;
    for (const p of chunk) {
      succeeded += p.succeeded;
      failed += p.failed;
      if (p.latencyAvgMs !== null) {
        latSum += p.latencyAvgMs * p.started;
        started += p.started;
      }
      if (p.latencyMaxMs !== null) latMax = Math.max(latMax ?? 0, p.latencyMaxMs);
      if (p.depth !== null) depth = p.depth;
    }
    const n = chunk.length;
    out.push({
      t: Date.parse(first.at),
      succeeded: Math.round((succeeded / n) * 100) / 100,
      failed: Math.round((failed / n) * 100) / 100,
      latencyAvgMs: started > 0 ? Math.round(latSum / started) : null,
      latencyMaxMs: latMax,
      depth,
    });
  }
  return out;
}

/** What happened in the last minute (the 15-minute history, per-second grain): the Overview's cards read it. */
export function useRecentActivity(): { enqueued: number; succeeded: number; failed: number; dead: number } {
  const h = useHistory('15m');
  return useMemo(() => {
    const out = { enqueued: 0, succeeded: 0, failed: 0, dead: 0 };
    const since = Date.now() - 60_000;
    for (const b of h.data?.buckets ?? []) {
      if (Date.parse(b.at) < since) continue;
      out.enqueued += b.enqueued ?? 0;
      out.succeeded += b.succeeded ?? 0;
      out.failed += b.failed ?? 0;
      out.dead += b.dead ?? 0;
    }
    return out;
  }, [h.data]);
}

/**
 * The Overview's Activity section: range selector and charts bucketed to the range — 5 s at 15 min,
 * 1 min at 1 h, 15 min at 24 h, 1 h at 7 d, 6 h at 30 d. Buckets without data are gaps, not zeros. Drawn again
 * when its history changes, not on each of the Overview's polls.
 */
export const ActivityCharts = memo(function ActivityCharts({ initial = '15m' }: { initial?: HistoryRange }) {
  const [range, setRange] = useState<HistoryRange>(initial);
  const h = useHistory(range);
  const data = useMemo(() => toPoints(h.data), [h.data]);
  const bucketMs = h.data?.bucketMs ?? 5000;
  const perSecond = bucketMs < 60_000;
  return (
    <section data-testid="activity" data-range={h.data?.range ?? range}>
      <div className="mb-3 flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold text-slate-900">Activity</h2>
        <RangePicker value={range} onChange={setRange} />
      </div>
      {h.isPending ? (
        <div className="rounded-lg border border-slate-200 bg-white">
          <LoadingState rows={5} />
        </div>
      ) : h.isError && !h.data ? (
        <div className="rounded-lg border border-slate-200 bg-white">
          <ErrorState error={h.error} onRetry={() => void h.refetch()} title="Could not load the history" />
        </div>
      ) : (
        <div className="grid gap-4 lg:grid-cols-2 xl:grid-cols-4">
          <ThroughputBars data={data} bucketMs={bucketMs} />
          <LatencyLines data={data} bucketMs={bucketMs} perSecond={perSecond} />
          <DurationLines data={data} bucketMs={bucketMs} note={perSecond ? 'Durations are kept per minute: choose 1 h or longer.' : null} />
          <DepthLine data={data} bucketMs={bucketMs} note={range === '7d' || range === '30d' ? 'Depth samples are kept 24 h.' : null} />
        </div>
      )}
    </section>
  );
});
