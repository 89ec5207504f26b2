'use client';
import { useCanOperate } from '../role';
import { loadDemoWorkload } from '@/app/actions';
import type { StatsJson } from '../api';
import { formatNumber } from '../format';
import { useLive } from '../live';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { cx } from '../ui/cx';
import { NextFires } from '../schedules/NextFires';
import { ActivityCharts, useRecentActivity } from './Charts';
import { QueueTable } from './QueueTable';
import type { QueueHealthJson } from '../why/WhyReason';

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
      {/* wraps rather than cut: a card is narrow beside six others */}
      {sub && (
        <div className="mt-0.5 text-xs text-slate-500" data-testid={`${testId}-sub`}>
          {sub}
        </div>
      )}
    </div>
  );
}

export function Overview() {
  const operator = useCanOperate();
  const stats = useLive<StatsJson>(['stats'], '/api/stats');
  const health = useLive<{ queues: QueueHealthJson[] }>(['queue-health'], '/api/why');
  const demo = useAction(loadDemoWorkload, { success: (r) => `Enqueued ${r.count} demo tasks across several queues` });

  // the last minute of the history (per-second grain), shared with the Activity charts' 15-minute range
  const lastMinute = useRecentActivity();

  const s = stats.data;
  const liveWorkers = s?.workers.filter((w) => w.state === 'running').length ?? 0;
  const busyWorkers = s?.workers.filter((w) => w.state === 'running' && w.currentTask).length ?? 0;
  const queueHealth = health.data?.queues;
  const split = queueHealth?.reduce(
    (a, h) => ({ ready: a.ready + h.ready, scheduled: a.scheduled + h.scheduled, retrying: a.retrying + h.retrying }),
    {
      ready: 0,
      scheduled: 0,
      retrying: 0,
    },
  );
  const unserved = queueHealth?.filter((h) => h.noWorker) ?? [];

  return (
    <>
      <PageHeader
        title="Overview"
        description="Tasks by status and queue, and what the workers did over the last minutes."
        actions={
          <Button variant="primary" busy={demo.busy} onClick={() => void demo.run()} data-testid="load-demo" hidden={!operator}>
            Load demo workload
          </Button>
        }
      />
      {s && <StaleBanner error={stats.error} updatedAt={stats.dataUpdatedAt} />}
      {unserved.length > 0 && (
        <div
          role="alert"
          data-testid="no-worker-warning"
          className="mb-3 rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800"
        >
          No live worker serves {unserved.length === 1 ? 'queue' : 'queues'} {unserved.map((h) => h.queue).join(', ')}, which{' '}
          {unserved.length === 1 ? 'has' : 'have'} ready tasks: start a worker (<code>readpast worker</code>) or raise the pool size on the
          Workers page.
          {unserved.some((h) => Number(h.why?.detail?.elsewhere ?? 0) > 0) && (
            <>
              {' '}
              Some live workers claim only from other queues (their <code>--queues</code>).
            </>
          )}
        </div>
      )}

      <div className="mb-5 grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-7">
        <Stat testId="stat-waiting" label="Waiting" value={s ? s.totals.waiting : '–'} tone="bg-violet-400" sub="for parents to succeed" />
        <Stat
          testId="stat-pending"
          label="Pending"
          value={s ? s.totals.pending : '–'}
          tone="bg-sky-500"
          sub={
            split && split.ready + split.scheduled + split.retrying > 0
              ? [
                  [split.ready, 'ready'],
                  [split.scheduled, 'sched'],
                  [split.retrying, 'retry'],
                ]
                  .filter(([n]) => Number(n) > 0)
                  .map(([n, l]) => `${formatNumber(Number(n))} ${l}`)
                  .join(' · ')
              : `+${formatNumber(lastMinute.enqueued)} last min`
          }
        />
        <Stat
          testId="stat-running"
          label="Running"
          value={s ? s.totals.running : '–'}
          tone="bg-amber-400"
          sub={
            s ? `${busyWorkers} of ${liveWorkers} workers busy${s.totals.claimed ? ` · ${s.totals.claimed} claimed ahead` : ''}` : undefined
          }
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
          sub={`+${formatNumber(lastMinute.dead)} last min`}
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
          <QueueTable stats={s} health={queueHealth} />
        ) : null}
      </Card>

      <NextFires />

      <ActivityCharts />
    </>
  );
}
