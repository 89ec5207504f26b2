'use client';
import { useMemo, useState } from 'react';
import { loadDemoWorkload } from '@/app/actions';
import type { MetricsJson, StatsJson } from '../api';
import { formatNumber } from '../format';
import { useLive } from '../live';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { cx } from '../ui/cx';
import { NextFires } from '../schedules/NextFires';
import { bucketPoints, DepthChart, LatencyChart, ThroughputChart } from './Charts';
import { QueueTable } from './QueueTable';

const RANGES = [5, 15, 60] as const;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function Stat({ label, value, tone, sub, testId }: { label: string; value: number | string; tone: string; sub?: string; testId: string }) {
  return (
    <div data-testid={testId} className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-xs">
      <div className="flex items-center gap-1.5 text-xs font-medium uppercase tracking-wide text-slate-500">
        <span className={cx('size-2 rounded-full', tone)} />
        {label}
      </div>
      <div className="tabular mt-1 text-2xl font-semibold text-slate-900" data-testid={`${testId}-value`}>
        {typeof value === 'number' ? formatNumber(value) : value}
      </div>
      {sub && <div className="mt-0.5 truncate text-xs text-slate-500">{sub}</div>}
    </div>
  );
}

export function Overview() {
  const [minutes, setMinutes] = useState<(typeof RANGES)[number]>(15);
  const stats = useLive<StatsJson>(['stats'], '/api/stats');
  const metrics = useLive<MetricsJson>(['metrics', minutes], `/api/metrics?minutes=${minutes}`, { keepPrevious: true });
  const demo = useAction(loadDemoWorkload, { success: (r) => `Enqueued ${r.count} demo tasks across several queues` });

  const series = useMemo(() => bucketPoints(metrics.data?.points ?? [], minutes > 15 ? 4 : 1), [metrics.data, minutes]);
  const lastMinute = useMemo(() => {
    const pts = (metrics.data?.points ?? []).slice(-60);
    return pts.reduce(
      (a, p) => ({ succeeded: a.succeeded + p.succeeded, failed: a.failed + p.failed, enqueued: a.enqueued + p.enqueued }),
      { succeeded: 0, failed: 0, enqueued: 0 },
    );
  }, [metrics.data]);

  const s = stats.data;
  const liveWorkers = s?.workers.filter((w) => w.state === 'running').length ?? 0;
  const busyWorkers = s?.workers.filter((w) => w.state === 'running' && w.currentTask).length ?? 0;

  return (
    <>
      <PageHeader
        title="Overview"
        description="Tasks by status and queue, and what the workers did over the last minutes."
        actions={
          <Button variant="primary" busy={demo.busy} onClick={() => void demo.run()} data-testid="load-demo">
            Load demo workload
          </Button>
        }
      />
      {s && <StaleBanner error={stats.error} updatedAt={stats.dataUpdatedAt} />}

      <div className="mb-5 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Stat
          testId="stat-pending"
          label="Pending"
          value={s ? s.totals.pending : '–'}
          tone="bg-sky-500"
          sub={`+${formatNumber(lastMinute.enqueued)} last min`}
        />
        <Stat
          testId="stat-running"
          label="Running"
          value={s ? s.totals.running : '–'}
          tone="bg-amber-400"
          sub={s ? `${busyWorkers} of ${liveWorkers} workers busy` : undefined}
        />
        <Stat
          testId="stat-succeeded"
          label="Succeeded"
          value={s ? s.totals.succeeded : '–'}
          tone="bg-emerald-500"
          sub={`+${formatNumber(lastMinute.succeeded)} last min`}
        />
        <Stat
          testId="stat-dead"
          label="Dead"
          value={s ? s.totals.dead : '–'}
          tone="bg-rose-500"
          sub={`${formatNumber(lastMinute.failed)} failed last min`}
        />
        <Stat testId="stat-cancelled" label="Cancelled" value={s ? s.totals.cancelled : '–'} tone="bg-slate-400" />
        <Stat
          testId="stat-workers"
          label="Workers"
          value={s ? liveWorkers : '–'}
          tone="bg-violet-500"
          sub={
            s
              ? plural(
                  new Set(s.workers.filter((w) => w.state === 'running').map((w) => `${w.host}:${w.pid}`)).size,
                  'process',
                  'processes',
                )
              : undefined
          }
        />
      </div>

      <Card className="mb-5" testId="queues-card">
        <CardHeader title="Queues" subtitle="Tasks per queue and status" />
        {stats.isPending ? (
          <LoadingState rows={3} />
        ) : stats.isError && !s ? (
          <ErrorState error={stats.error} onRetry={() => void stats.refetch()} />
        ) : s && s.queues.length === 0 ? (
          <EmptyState title="No tasks yet">
            Enqueue a task, or press <strong>Load demo workload</strong> to see the engine at work.
          </EmptyState>
        ) : s ? (
          <QueueTable stats={s} />
        ) : null}
      </Card>

      <NextFires />

      <div className="mb-3 flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold text-slate-900">Activity</h2>
        <div role="group" aria-label="Time range" className="inline-flex rounded-md bg-white p-0.5 shadow-xs ring-1 ring-slate-200">
          {RANGES.map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={m === minutes}
              onClick={() => setMinutes(m)}
              className={cx(
                'rounded px-2.5 py-1 text-xs font-medium',
                m === minutes ? 'bg-slate-900 text-white' : 'text-slate-600 hover:bg-slate-100',
              )}
            >
              {m} min
            </button>
          ))}
        </div>
      </div>
      {metrics.isPending ? (
        <Card>
          <LoadingState rows={5} />
        </Card>
      ) : metrics.isError && !metrics.data ? (
        <Card>
          <ErrorState error={metrics.error} onRetry={() => void metrics.refetch()} title="Could not load metrics" />
        </Card>
      ) : (
        <div className="grid gap-4 lg:grid-cols-3">
          <ThroughputChart data={series} />
          <LatencyChart data={series} />
          <DepthChart data={series} />
        </div>
      )}
    </>
  );
}
