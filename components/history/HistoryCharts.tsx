'use client';
// Charts over history buckets: counts as bars (an empty bucket draws nothing), durations and latencies as
// lines that break where a bucket holds no data (connectNulls off), with the range's avg, p95 and max
// written beside the title so the slowest value is never hidden by the line's scale.
import { memo, type ReactElement } from 'react';
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { cx } from '../ui/cx';
import { RANGES, type HistoryBucketJson, type HistoryJson, type HistoryRange } from './useHistory';

export interface HistoryPoint extends Omit<HistoryBucketJson, 'at'> {
  t: number;
}

export const toPoints = (h: HistoryJson | undefined): HistoryPoint[] =>
  (h?.buckets ?? []).map(({ at, ...b }) => ({ ...b, t: Date.parse(at) }));

/** 850ms, 16.5s, 4.2m, 3.1h: short enough for an axis of 56 px. */
export function compactMs(v: number): string {
  if (!Number.isFinite(v)) return '';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const fmt = (n: number) => String(Number(n.toFixed(n < 10 ? 1 : 0)));
  if (a < 1000) return `${Math.round(v)}ms`;
  if (a < 60_000) return `${fmt(v / 1000)}s`;
  if (a < 3_600_000) return `${fmt(v / 60_000)}m`;
  return `${fmt(v / 3_600_000)}h`;
}

/** 950, 1.2k, 34k, 1.5M */
export function compactCount(v: number): string {
  const a = Math.abs(v);
  if (a < 1000) return String(Math.round(v * 100) / 100);
  if (a < 1_000_000) return `${Number((v / 1000).toFixed(a < 10_000 ? 1 : 0))}k`;
  return `${Number((v / 1_000_000).toFixed(1))}M`;
}

const p2 = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Axis ticks: clock time up to a day, the date beyond. */
export function tickFormat(bucketMs: number) {
  return (t: unknown) => {
    const d = new Date(Number(t));
    if (bucketMs >= 3_600_000) return `${MONTHS[d.getMonth()]} ${d.getDate()}${bucketMs < 6 * 3_600_000 ? ` ${p2(d.getHours())}h` : ''}`;
    return `${p2(d.getHours())}:${p2(d.getMinutes())}`;
  };
}

export function labelFormat(bucketMs: number) {
  return (t: unknown) => {
    const d = new Date(Number(t));
    const day = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
    const clock = `${p2(d.getHours())}:${p2(d.getMinutes())}${bucketMs < 60_000 ? `:${p2(d.getSeconds())}` : ''}`;
    return `${day} ${clock} · ${bucketLabel(bucketMs)}`;
  };
}

export function bucketLabel(bucketMs: number): string {
  if (bucketMs < 60_000) return `${bucketMs / 1000} s`;
  if (bucketMs < 3_600_000) return `${bucketMs / 60_000} min`;
  return `${bucketMs / 3_600_000} h`;
}

const axis = { stroke: '#94a3b8', fontSize: 11, tickLine: false, axisLine: false } as const;
const tooltipStyle = { fontSize: 12, borderRadius: 6, border: '1px solid #e2e8f0' };
const AXIS_WIDTH = 56;

export function RangePicker({ value, onChange }: { value: HistoryRange; onChange: (r: HistoryRange) => void }) {
  return (
    <div
      role="group"
      aria-label="History range"
      data-testid="range-picker"
      className="inline-flex rounded-md bg-white p-0.5 shadow-xs ring-1 ring-slate-200"
    >
      {RANGES.map((r) => (
        <button
          key={r.range}
          type="button"
          aria-pressed={r.range === value}
          data-testid={`range-${r.range}`}
          onClick={() => onChange(r.range)}
          className={cx(
            'rounded px-2.5 py-1 text-xs font-medium',
            r.range === value ? 'bg-slate-900 text-white' : 'text-slate-600 hover:bg-slate-100',
          )}
        >
          {r.label}
        </button>
      ))}
    </div>
  );
}

function Frame({
  title,
  legend,
  summary,
  children,
  testId,
  note,
}: {
  title: string;
  legend: { label: string; color: string }[];
  summary?: string;
  children: ReactElement;
  testId: string;
  note?: string | null;
}) {
  return (
    <div data-testid={testId} className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0">
          <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
          {summary && (
            <p className="tabular text-xs text-slate-500" data-testid={`${testId}-summary`}>
              {summary}
            </p>
          )}
        </div>
        <div className="flex gap-3 text-xs text-slate-500">
          {legend.map((l) => (
            <span key={l.label} className="flex items-center gap-1">
              <span className="size-2 rounded-sm" style={{ background: l.color }} />
              {l.label}
            </span>
          ))}
        </div>
      </div>
      <div className="relative h-44">
        {note && (
          <div className="absolute inset-0 z-10 flex items-center justify-center px-6 text-center text-xs text-slate-400">{note}</div>
        )}
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
    </div>
  );
}

const sum = (data: HistoryPoint[], k: keyof HistoryPoint) => data.reduce((s, p) => s + ((p[k] as number | null) ?? 0), 0);
const maxOf = (data: HistoryPoint[], k: keyof HistoryPoint): number | null =>
  data.reduce<number | null>((m, p) => (p[k] === null ? m : Math.max(m ?? 0, p[k] as number)), null);

/** The count-weighted average of a per-bucket average over the range. */
function weightedAvg(data: HistoryPoint[], avg: keyof HistoryPoint, weight: keyof HistoryPoint): number | null {
  let n = 0;
  let s = 0;
  for (const p of data) {
    const a = p[avg] as number | null;
    const w = (p[weight] as number | null) ?? 0;
    if (a === null || w <= 0) continue;
    n += w;
    s += a * w;
  }
  return n > 0 ? s / n : null;
}

function msSummary(parts: [string, number | null][]): string | undefined {
  const shown = parts.filter(([, v]) => v !== null).map(([l, v]) => `${l} ${compactMs(v!)}`);
  return shown.length ? shown.join(' · ') : undefined;
}

function ThroughputBarsView({ data, bucketMs, testId = 'chart-throughput' }: { data: HistoryPoint[]; bucketMs: number; testId?: string }) {
  return (
    <Frame
      testId={testId}
      title={`Throughput (per ${bucketLabel(bucketMs)})`}
      summary={[
        `${compactCount(sum(data, 'succeeded'))} succeeded`,
        `${compactCount(sum(data, 'failed'))} failed`,
        `${compactCount(sum(data, 'dead'))} dead`,
      ].join(' · ')}
      legend={[
        { label: 'succeeded', color: '#10b981' },
        { label: 'failed', color: '#f43f5e' },
      ]}
    >
      <BarChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: 0 }} barCategoryGap={1}>
        <CartesianGrid stroke="#f1f5f9" vertical={false} />
        <XAxis dataKey="t" tickFormatter={tickFormat(bucketMs)} minTickGap={40} {...axis} />
        <YAxis allowDecimals={false} width={AXIS_WIDTH} tickFormatter={compactCount} {...axis} />
        <Tooltip labelFormatter={labelFormat(bucketMs)} contentStyle={tooltipStyle} />
        <Bar dataKey="succeeded" stackId="a" fill="#10b981" isAnimationActive={false} />
        <Bar dataKey="failed" stackId="a" fill="#f43f5e" isAnimationActive={false} />
      </BarChart>
    </Frame>
  );
}

function FailureBarsView({ data, bucketMs }: { data: HistoryPoint[]; bucketMs: number }) {
  return (
    <Frame
      testId="chart-failures"
      title={`Failures (per ${bucketLabel(bucketMs)})`}
      summary={`${compactCount(sum(data, 'failed'))} failed ${sum(data, 'failed') === 1 ? 'attempt' : 'attempts'} · ${compactCount(
        sum(data, 'dead'),
      )} went dead`}
      legend={[
        { label: 'failed (retried)', color: '#fb923c' },
        { label: 'dead', color: '#be123c' },
      ]}
    >
      <BarChart
        data={data.map((p) => ({ ...p, retried: p.failed === null ? null : p.failed - (p.dead ?? 0) }))}
        margin={{ top: 4, right: 4, bottom: 0, left: 0 }}
        barCategoryGap={1}
      >
        <CartesianGrid stroke="#f1f5f9" vertical={false} />
        <XAxis dataKey="t" tickFormatter={tickFormat(bucketMs)} minTickGap={40} {...axis} />
        <YAxis allowDecimals={false} width={AXIS_WIDTH} tickFormatter={compactCount} {...axis} />
        <Tooltip labelFormatter={labelFormat(bucketMs)} contentStyle={tooltipStyle} />
        <Bar dataKey="retried" name="failed (retried)" stackId="a" fill="#fb923c" isAnimationActive={false} />
        <Bar dataKey="dead" stackId="a" fill="#be123c" isAnimationActive={false} />
      </BarChart>
    </Frame>
  );
}

function MsLines({
  data,
  bucketMs,
  testId,
  title,
  lines,
  summary,
  note,
}: {
  data: HistoryPoint[];
  bucketMs: number;
  testId: string;
  title: string;
  lines: { key: keyof HistoryPoint; name: string; color: string; width?: number }[];
  summary?: string;
  note?: string | null;
}) {
  return (
    <Frame testId={testId} title={title} summary={summary} note={note} legend={lines.map((l) => ({ label: l.name, color: l.color }))}>
      <LineChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="#f1f5f9" vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={['dataMin', 'dataMax']}
          tickFormatter={tickFormat(bucketMs)}
          minTickGap={40}
          {...axis}
        />
        <YAxis width={AXIS_WIDTH} tickFormatter={compactMs} {...axis} />
        <Tooltip
          labelFormatter={labelFormat(bucketMs)}
          formatter={(v) => (typeof v === 'number' ? compactMs(v) : String(v))}
          contentStyle={tooltipStyle}
        />
        {lines.map((l) => (
          <Line
            key={String(l.key)}
            type="monotone"
            dataKey={l.key}
            name={l.name}
            stroke={l.color}
            dot={data.length <= 200 ? { r: 1.5, strokeWidth: 0, fill: l.color } : false}
            strokeWidth={l.width ?? 1.5}
            connectNulls={false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </Frame>
  );
}

function LatencyLinesView({ data, bucketMs, perSecond }: { data: HistoryPoint[]; bucketMs: number; perSecond?: boolean }) {
  const avg = weightedAvg(data, 'latencyAvgMs', 'started');
  const lines: { key: keyof HistoryPoint; name: string; color: string; width?: number }[] = perSecond
    ? [
        { key: 'latencyMaxMs', name: 'max', color: '#f59e0b' },
        { key: 'latencyAvgMs', name: 'avg', color: '#2f7bf6', width: 2 },
      ]
    : [
        { key: 'latencyMaxMs', name: 'max', color: '#f59e0b' },
        { key: 'latencyP95Ms', name: 'p95', color: '#8b5cf6' },
        { key: 'latencyP50Ms', name: 'p50', color: '#2f7bf6', width: 2 },
      ];
  return (
    <MsLines
      data={data}
      bucketMs={bucketMs}
      testId="chart-latency"
      title="Enqueue → start latency"
      lines={lines}
      summary={msSummary([
        ['avg', avg],
        ['max', maxOf(data, 'latencyMaxMs')],
      ])}
    />
  );
}

function DurationLinesView({ data, bucketMs, note }: { data: HistoryPoint[]; bucketMs: number; note?: string | null }) {
  const avg = weightedAvg(data, 'durationAvgMs', 'succeeded');
  return (
    <MsLines
      data={data}
      bucketMs={bucketMs}
      testId="chart-duration"
      title="Attempt duration"
      note={note}
      lines={[
        { key: 'durationMaxMs', name: 'max', color: '#f59e0b' },
        { key: 'durationP95Ms', name: 'p95', color: '#8b5cf6' },
        { key: 'durationP50Ms', name: 'p50', color: '#0d9488', width: 2 },
      ]}
      summary={msSummary([
        ['avg', avg],
        ['max', maxOf(data, 'durationMaxMs')],
      ])}
    />
  );
}

function DepthLineView({ data, bucketMs, note }: { data: HistoryPoint[]; bucketMs: number; note?: string | null }) {
  const max = maxOf(data, 'depth');
  return (
    <Frame
      testId="chart-depth"
      title="Queue depth (pending)"
      summary={max === null ? undefined : `max ${compactCount(max)}`}
      note={note}
      legend={[{ label: 'pending', color: '#0ea5e9' }]}
    >
      <LineChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: 0 }}>
        <CartesianGrid stroke="#f1f5f9" vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={['dataMin', 'dataMax']}
          tickFormatter={tickFormat(bucketMs)}
          minTickGap={40}
          {...axis}
        />
        <YAxis allowDecimals={false} width={AXIS_WIDTH} tickFormatter={compactCount} {...axis} />
        <Tooltip labelFormatter={labelFormat(bucketMs)} contentStyle={tooltipStyle} />
        <Line
          type="stepAfter"
          dataKey="depth"
          name="pending"
          stroke="#0ea5e9"
          dot={false}
          strokeWidth={1.5}
          connectNulls={false}
          isAnimationActive={false}
        />
      </LineChart>
    </Frame>
  );
}

// Drawn again only when their data or options change: the page around them re-renders on every poll (1 s), the
// history changes once a bucket (5 s at 15 min). Four charts of 180 points drawn each second were most of what an
// open Overview cost its browser while idle (its main thread's script time fell from ~30 % to ~6 % of a core).
export const ThroughputBars = memo(ThroughputBarsView);
export const FailureBars = memo(FailureBarsView);
export const LatencyLines = memo(LatencyLinesView);
export const DurationLines = memo(DurationLinesView);
export const DepthLine = memo(DepthLineView);
