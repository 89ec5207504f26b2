'use client';
// Live charts over the per-second metrics aggregate: throughput, enqueue-to-start latency, queue depth.
import { Area, AreaChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReactElement } from 'react';
import type { MetricPointJson } from '../api';
import { formatDuration } from '../format';

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

const clock = (t: number) => {
  const d = new Date(t);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
};
const clockSec = (t: unknown) => {
  const d = new Date(Number(t));
  return `${clock(Number(t))}:${String(d.getSeconds()).padStart(2, '0')}`;
};

const axis = { stroke: '#94a3b8', fontSize: 11, tickLine: false, axisLine: false } as const;
const tooltipStyle = { fontSize: 12, borderRadius: 6, border: '1px solid #e2e8f0' };

function ChartFrame({
  title,
  legend,
  children,
  testId,
}: {
  title: string;
  legend: { label: string; color: string }[];
  children: ReactElement;
  testId: string;
}) {
  return (
    <div data-testid={testId} className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
        <div className="flex gap-3 text-xs text-slate-500">
          {legend.map((l) => (
            <span key={l.label} className="flex items-center gap-1">
              <span className="size-2 rounded-sm" style={{ background: l.color }} />
              {l.label}
            </span>
          ))}
        </div>
      </div>
      <div className="h-44">
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
    </div>
  );
}

export function ThroughputChart({ data }: { data: ChartPoint[] }) {
  return (
    <ChartFrame
      testId="chart-throughput"
      title="Throughput (per second)"
      legend={[
        { label: 'succeeded', color: '#10b981' },
        { label: 'failed', color: '#f43f5e' },
      ]}
    >
      <AreaChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: -16 }}>
        <CartesianGrid stroke="#f1f5f9" vertical={false} />
        <XAxis dataKey="t" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={clock} minTickGap={40} {...axis} />
        <YAxis allowDecimals={false} width={44} {...axis} />
        <Tooltip labelFormatter={clockSec} contentStyle={tooltipStyle} />
        <Area
          type="monotone"
          dataKey="succeeded"
          stroke="#10b981"
          fill="#10b981"
          fillOpacity={0.2}
          strokeWidth={1.5}
          isAnimationActive={false}
        />
        <Area
          type="monotone"
          dataKey="failed"
          stroke="#f43f5e"
          fill="#f43f5e"
          fillOpacity={0.25}
          strokeWidth={1.5}
          isAnimationActive={false}
        />
      </AreaChart>
    </ChartFrame>
  );
}

export function LatencyChart({ data }: { data: ChartPoint[] }) {
  return (
    <ChartFrame
      testId="chart-latency"
      title="Enqueue → start latency"
      legend={[
        { label: 'avg', color: '#2f7bf6' },
        { label: 'max', color: '#f59e0b' },
      ]}
    >
      <LineChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: -16 }}>
        <CartesianGrid stroke="#f1f5f9" vertical={false} />
        <XAxis dataKey="t" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={clock} minTickGap={40} {...axis} />
        <YAxis
          width={44}
          tickFormatter={(v: number) => (v === 0 ? '0' : v >= 1000 ? `${Number((v / 1000).toFixed(1))}s` : `${v}ms`)}
          {...axis}
        />
        <Tooltip
          labelFormatter={clockSec}
          formatter={(v) => (typeof v === 'number' ? formatDuration(v) : String(v))}
          contentStyle={tooltipStyle}
        />
        <Line
          type="monotone"
          dataKey="latencyMaxMs"
          name="max"
          stroke="#f59e0b"
          dot={false}
          strokeWidth={1.5}
          connectNulls
          isAnimationActive={false}
        />
        <Line
          type="monotone"
          dataKey="latencyAvgMs"
          name="avg"
          stroke="#2f7bf6"
          dot={false}
          strokeWidth={2}
          connectNulls
          isAnimationActive={false}
        />
      </LineChart>
    </ChartFrame>
  );
}

export function DepthChart({ data }: { data: ChartPoint[] }) {
  return (
    <ChartFrame testId="chart-depth" title="Queue depth (pending)" legend={[{ label: 'pending', color: '#0ea5e9' }]}>
      <AreaChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: -16 }}>
        <CartesianGrid stroke="#f1f5f9" vertical={false} />
        <XAxis dataKey="t" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={clock} minTickGap={40} {...axis} />
        <YAxis allowDecimals={false} width={44} {...axis} />
        <Tooltip labelFormatter={clockSec} contentStyle={tooltipStyle} />
        <Area
          type="monotone"
          dataKey="depth"
          name="pending"
          stroke="#0ea5e9"
          fill="#0ea5e9"
          fillOpacity={0.2}
          connectNulls
          isAnimationActive={false}
        />
      </AreaChart>
    </ChartFrame>
  );
}
