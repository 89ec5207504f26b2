'use client';
// The batch's attempts from ExecutionLog as a Gantt chart: x = time since the first start, one row per
// attempt grouped by stage (one per stage for large batches), bars coloured by outcome.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useMemo } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
} from 'recharts';
import { fetchJson } from '../api';
import { formatDuration, formatLocal, shortToken } from '../format';
import { POLL_MS, useNow } from '../live';
import { Card, CardHeader } from '../ui/Card';
import { EmptyState, ErrorState, LoadingState } from '../ui/States';
import { buildTimeline, formatOffset, OUTCOME_COLOR, type TimelineModel, type TimelineRow } from './timeline';
import { isActive, type BatchJson, type TimelineJson } from './types';

const axis = { stroke: '#94a3b8', fontSize: 11, tickLine: false, axisLine: false } as const;
const LEGEND = ['running', 'succeeded', 'failed', 'timed_out', 'abandoned', 'cancelled'] as const;

function Tip({ active, payload, model }: TooltipContentProps<number, string> & { model: TimelineModel }) {
  const row = payload?.[0]?.payload as TimelineRow | undefined;
  if (!active || !row) return null;
  const [start, end] = row.range;
  const a = row.attempt;
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2 text-xs shadow-md">
      <div className="mb-1 flex items-center gap-2 font-medium text-slate-900">
        <span className="size-2 rounded-full" style={{ background: OUTCOME_COLOR[row.outcome] ?? '#94a3b8' }} />
        stage {row.stage}
        {a ? (
          <span className="font-mono text-slate-500">
            {shortToken(a.token)} · attempt {a.attempt}
          </span>
        ) : (
          <span className="text-slate-500">
            {row.count} attempt{row.count === 1 ? '' : 's'}
          </span>
        )}
      </div>
      <div className="text-slate-600">
        {row.outcome.replace('_', ' ')} · {formatDuration(end - start)}
      </div>
      <div className="text-slate-500">
        {formatLocal(new Date(model.t0 + start).toISOString()).slice(11)} →{' '}
        {a && !a.endedAt ? 'now' : formatLocal(new Date(model.t0 + end).toISOString()).slice(11)}
      </div>
      {a && (
        <div className="mt-0.5 max-w-64 truncate font-mono text-slate-400" title={`${a.workerId ?? '—'} · spid ${a.session ?? '—'}`}>
          {a.workerId ?? '—'} · spid {a.session ?? '—'}
        </div>
      )}
    </div>
  );
}

function Chart({ model }: { model: TimelineModel }) {
  const router = useRouter();
  const labels = useMemo(() => new Map(model.rows.map((r) => [r.key, r.label])), [model.rows]);
  const n = model.rows.length;
  const rowHeight = model.mode === 'stage' ? 30 : Math.max(8, Math.min(24, Math.floor(720 / Math.max(1, n))));
  const height = n * rowHeight + 44;

  return (
    <div style={{ height }} className="px-2 pb-2" data-testid="batch-timeline-chart" data-rows={n} data-mode={model.mode}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart
          data={model.rows}
          layout="vertical"
          margin={{ top: 16, right: 16, bottom: 0, left: 0 }}
          barCategoryGap={model.mode === 'stage' ? '25%' : '18%'}
        >
          <CartesianGrid stroke="#f1f5f9" horizontal={false} />
          <XAxis type="number" domain={[0, Math.max(1, model.span)]} tickFormatter={formatOffset} minTickGap={24} {...axis} />
          <YAxis type="category" dataKey="key" width={62} interval={0} tickFormatter={(k: string) => labels.get(k) ?? ''} {...axis} />
          <Tooltip
            content={(p) => <Tip {...(p as TooltipContentProps<number, string>)} model={model} />}
            cursor={{ fill: '#f1f5f9' }}
            isAnimationActive={false}
          />
          {model.stageStarts.map((s) => (
            <ReferenceLine
              key={s.stage}
              x={s.at}
              stroke="#94a3b8"
              strokeDasharray="3 3"
              label={{ value: `S${s.stage}`, position: 'top', fontSize: 10, fill: '#64748b' }}
            />
          ))}
          <Bar
            dataKey="range"
            isAnimationActive={false}
            radius={2}
            cursor={model.mode === 'attempt' ? 'pointer' : undefined}
            onClick={(d) => {
              const row = d.payload as TimelineRow | undefined;
              if (row?.attempt) router.push(`/tasks/${row.attempt.token}`);
            }}
          >
            {model.rows.map((r) => (
              <Cell key={r.key} fill={OUTCOME_COLOR[r.outcome] ?? '#94a3b8'} data-outcome={r.outcome} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function Timeline({ batch }: { batch: BatchJson }) {
  const live = isActive(batch) || batch.totals.running > 0;
  const q = useQuery<TimelineJson, Error>({
    // a finished batch is read once more, then no longer polled
    queryKey: ['batch-timeline', batch.id, live ? 'live' : 'done'],
    queryFn: ({ signal }) => fetchJson<TimelineJson>(`/api/batches/${batch.id}/timeline`, signal),
    refetchInterval: live ? POLL_MS : false,
    refetchIntervalInBackground: false,
    placeholderData: keepPreviousData,
  });
  const now = useNow();
  const attempts = q.data?.attempts;
  const running = attempts?.some((a) => a.endedAt === null) ?? false;
  // while an attempt runs its bar grows with the clock; otherwise the model only changes with the data
  const clock = running ? now : 0;
  const model = useMemo(() => (attempts ? buildTimeline(attempts, clock || Date.now()) : null), [attempts, clock]);

  return (
    <Card testId="batch-timeline">
      <CardHeader
        title="Timeline"
        subtitle={
          model && model.rows.length > 0
            ? `${attempts!.length} attempt${attempts!.length === 1 ? '' : 's'} from ExecutionLog, ` +
              (model.mode === 'attempt'
                ? 'one row each, grouped by stage'
                : 'one row per stage and outcome, from its first start to its last end') +
              "; dashed lines mark each stage's first start." +
              (q.data?.truncated ? ' Only the first 5,000 attempts are drawn.' : '')
            : 'Attempts from ExecutionLog, per stage'
        }
        actions={
          <div className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-slate-500">
            {LEGEND.map((o) => (
              <span key={o} className="flex items-center gap-1">
                <span className="size-2 rounded-sm" style={{ background: OUTCOME_COLOR[o] }} />
                {o.replace('_', ' ')}
              </span>
            ))}
          </div>
        }
      />
      {q.isPending ? (
        <LoadingState rows={3} />
      ) : q.isError && !q.data ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : !model || model.rows.length === 0 ? (
        <EmptyState title="No attempts yet" icon="timeline" testId="timeline-empty">
          Bars appear as workers start the batch&apos;s tasks.
        </EmptyState>
      ) : (
        <Chart model={model} />
      )}
    </Card>
  );
}
