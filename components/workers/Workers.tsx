'use client';
// Worker processes, their workers' sessions, heartbeats and current tasks; this process's pool size, live;
// and the doctor's verdict on this database (DoctorPanel).
import Link from 'next/link';
import { useState } from 'react';
import type { WorkerJson, WorkersJson } from '../api';
import { formatAge } from '../format';
import { useLive } from '../live';
import { Badge, WorkerStateBadge } from '../ui/Badge';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { EmptyState, ErrorState, LoadingState, Notice, StaleBanner } from '../ui/States';
import { cx } from '../ui/cx';
import { Elapsed, RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import { DoctorPanel } from './DoctorPanel';
import { PoolSize } from './PoolSize';
import { WorkerSession } from './WorkerSession';

interface Proc {
  key: string;
  host: string;
  pid: number;
  role: string;
  /** the only queues its workers claim from (`--queues`); null: every queue */
  queues: string[] | null;
  workers: WorkerJson[];
  startedAt: string | null;
  self: boolean;
}

function groupByProcess(workers: WorkerJson[], pool: WorkersJson['pool']): Proc[] {
  const map = new Map<string, Proc>();
  for (const w of workers) {
    const key = `${w.host}:${w.pid}`;
    let p = map.get(key);
    if (!p) {
      p = {
        key,
        host: w.host,
        pid: w.pid,
        role: w.role,
        queues: null,
        workers: [],
        startedAt: w.startedAt,
        self: !!pool && pool.host === w.host && pool.pid === w.pid,
      };
      map.set(key, p);
    }
    p.workers.push(w);
    if (w.queues?.length && w.state !== 'stopped') p.queues = [...w.queues];
    if (w.startedAt && (!p.startedAt || w.startedAt < p.startedAt)) p.startedAt = w.startedAt;
  }
  if (pool && !map.has(`${pool.host}:${pool.pid}`)) {
    map.set(`${pool.host}:${pool.pid}`, {
      key: `${pool.host}:${pool.pid}`,
      host: pool.host,
      pid: pool.pid,
      role: pool.role,
      queues: null,
      workers: [],
      startedAt: null,
      self: true,
    });
  }
  return [...map.values()].sort((a, b) => Number(b.self) - Number(a.self) || a.key.localeCompare(b.key));
}

/** "this login lacks X: …" → "This login lacks X: …." */
const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;

function HeartbeatAge({ ms, state }: { ms: number; state: string }) {
  const stale = (state === 'running' || state === 'lost') && ms > 5000;
  return (
    <span
      className={cx('tabular font-mono text-xs', stale ? 'font-semibold text-rose-700' : ms > 2500 ? 'text-amber-700' : 'text-slate-600')}
      data-testid="worker-heartbeat"
    >
      {formatAge(ms)}
      {ms >= 1000 && ' ago'}
    </span>
  );
}

const columns: Column<WorkerJson>[] = [
  {
    key: 'worker',
    header: 'Worker',
    mobile: 'primary',
    cell: (w) => (
      <div className="flex items-center gap-2">
        <WorkerStateBadge state={w.state} />
        <span className="max-w-56 truncate font-mono text-xs text-slate-800" title={w.workerId}>
          {w.workerId}
        </span>
      </div>
    ),
  },
  {
    key: 'session',
    header: 'Session',
    cell: (w) => <WorkerSession w={w} />,
  },
  { key: 'heartbeat', header: 'Heartbeat', cell: (w) => <HeartbeatAge ms={w.heartbeatAgeMs} state={w.state} /> },
  {
    key: 'task',
    header: 'Current task',
    cell: (w) =>
      w.currentTask ? (
        <div className="flex flex-wrap items-center gap-2">
          <TokenLink token={w.currentTask.token} />
          <span className="max-w-48 truncate font-mono text-xs text-slate-700" title={w.currentTask.command}>
            {w.currentTask.command}
          </span>
          <span className="text-xs text-slate-400">{w.currentTask.queue}</span>
          <Elapsed from={w.currentTask.startedAt} className="tabular font-mono text-xs text-amber-700" />
        </div>
      ) : (
        <span className="text-xs text-slate-400">{w.state === 'running' ? 'idle' : '—'}</span>
      ),
  },
  { key: 'started', header: 'Started', cell: (w) => <RelativeTime iso={w.startedAt} className="text-xs text-slate-600" /> },
];

export function Workers() {
  const q = useLive<WorkersJson>(['workers'], '/api/workers');
  const [showStopped, setShowStopped] = useState(false);
  const d = q.data;
  // a process whose workers all stopped is history: listed only with "show stopped"
  const procs = d
    ? groupByProcess(d.workers, d.pool).filter((p) => showStopped || p.self || p.workers.some((w) => w.state !== 'stopped'))
    : [];
  const stoppedCount = d?.workers.filter((w) => w.state === 'stopped').length ?? 0;

  return (
    <>
      <PageHeader
        title="Workers"
        description={
          <>
            Every worker process, its readers and their database sessions. Resize this process&apos;s pool live; other machines run{' '}
            <code className="font-mono text-slate-700">readpast worker</code>.
          </>
        }
        actions={
          stoppedCount > 0 ? (
            <label className="flex items-center gap-2 text-sm text-slate-600">
              <input
                type="checkbox"
                className="size-4 accent-brand-600"
                checked={showStopped}
                onChange={(e) => setShowStopped(e.target.checked)}
                data-testid="show-stopped"
              />
              Show {stoppedCount} stopped
            </label>
          ) : undefined
        }
      />
      {d && <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />}
      {d?.liveStatus && !d.liveStatus.available && (
        <div className="mb-4" data-testid="live-status-note">
          <Notice tone="info">
            <b>Live request state is off.</b>{' '}
            <span data-testid="live-status-reason">{sentence(d.liveStatus.reason ?? NO_STATE_VIEWS)}</span> The Running page shows
            readpast&apos;s own columns only; grant VIEW SERVER STATE (VIEW DATABASE STATE on Azure SQL Database) to see waits, blocking and
            CPU.
          </Notice>
        </div>
      )}
      {d?.liveStatus?.available && (
        <p className="mb-4 text-xs text-emerald-700" data-testid="live-status-note">
          Live request state from sys.dm_exec_requests is available on the Running page.
        </p>
      )}
      <DoctorPanel />

      {q.isPending ? (
        <Card>
          <LoadingState rows={5} />
        </Card>
      ) : q.isError && !d ? (
        <Card>
          <ErrorState error={q.error} onRetry={() => void q.refetch()} />
        </Card>
      ) : procs.length === 0 ? (
        <Card>
          <EmptyState title="No workers registered" icon="workers">
            Start one with <code className="font-mono">readpast worker</code>, or run the dashboard with READPAST_WORKERS above 0.
          </EmptyState>
        </Card>
      ) : (
        <div className="space-y-5">
          {procs.map((p) => {
            const shown = showStopped ? p.workers : p.workers.filter((w) => w.state !== 'stopped');
            const running = p.workers.filter((w) => w.state === 'running').length;
            const busy = p.workers.filter((w) => w.state === 'running' && w.currentTask).length;
            // this process's retiring workers still run (their task) but are no longer part of the pool
            const retiring = p.self && d?.pool ? (d.pool.retiring ?? 0) : 0;
            const live = p.self && d?.pool ? Math.min(running, d.pool.size) : running;
            return (
              <Card key={p.key} testId={p.self ? 'process-self' : 'process'}>
                <CardHeader
                  title={
                    <span className="flex flex-wrap items-center gap-2">
                      <span className="font-mono">{p.host}</span>
                      <span className="font-normal text-slate-500">pid {p.pid}</span>
                      <Badge tone="violet">{p.role}</Badge>
                      {p.queues && (
                        <span
                          className="text-xs font-normal text-slate-500"
                          data-testid="process-queues"
                          title="claims only from these queues (--queues)"
                        >
                          queues <span className="font-mono text-slate-700">{p.queues.join(', ')}</span>
                        </span>
                      )}
                      {p.self && <Badge tone="blue">this dashboard</Badge>}
                    </span>
                  }
                  subtitle={
                    <span data-testid="process-summary">
                      {live} running worker{live === 1 ? '' : 's'}
                      {retiring > 0 && (
                        <span className="text-amber-700" data-testid="pool-retiring">
                          {' '}
                          · {retiring} retiring
                        </span>
                      )}{' '}
                      · {busy} busy
                      {p.startedAt && (
                        <>
                          {' '}
                          · up since <RelativeTime iso={p.startedAt} />
                        </>
                      )}
                    </span>
                  }
                  actions={p.self && d?.pool ? <PoolSize size={d.pool.size} busy={busy} source={d.pool.source} /> : undefined}
                />
                {shown.length === 0 ? (
                  <EmptyState title={p.self && d?.pool?.size === 0 ? 'Pool size is 0' : 'No running workers'} icon="workers">
                    {p.self ? 'Raise the pool size to start workers in this process.' : 'This process has no live workers.'}
                  </EmptyState>
                ) : (
                  <DataTable
                    testId="workers-table"
                    rows={shown}
                    columns={columns}
                    rowKey={(w) => w.workerId}
                    rowAttrs={(w) => ({ 'data-testid': 'worker-row', 'data-state': w.state, 'data-self': p.self ? '1' : undefined })}
                    rowClassName={(w) => (w.state === 'lost' ? 'bg-rose-50' : w.state === 'stopped' ? 'opacity-60' : undefined)}
                    phoneRow={(w) => (
                      <div className="space-y-1">
                        <div className="flex items-center gap-2">
                          <WorkerStateBadge state={w.state} />
                          <span className="min-w-0 flex-1 truncate font-mono text-xs text-slate-800" title={w.workerId}>
                            {w.workerId}
                          </span>
                          <HeartbeatAge ms={w.heartbeatAgeMs} state={w.state} />
                        </div>
                        <div className="flex flex-wrap items-center gap-x-3 text-xs text-slate-500">
                          <WorkerSession w={w} />
                          {w.currentTask ? (
                            <>
                              <TokenLink token={w.currentTask.token} />
                              <span className="font-mono text-slate-700">{w.currentTask.command}</span>
                              <Elapsed from={w.currentTask.startedAt} className="tabular font-mono text-xs text-amber-700" />
                            </>
                          ) : (
                            <span>{w.state === 'running' ? 'idle' : '—'}</span>
                          )}
                        </div>
                      </div>
                    )}
                  />
                )}
              </Card>
            );
          })}
          <p className="text-xs text-slate-500">
            A worker whose heartbeat is older than its lease is reported <b>lost</b>; its task is rescued and retried. See running work on
            the{' '}
            <Link href="/running" className="text-brand-600 hover:underline">
              Running
            </Link>{' '}
            page.
          </p>
        </div>
      )}
    </>
  );
}

const NO_STATE_VIEWS = 'the login cannot read the server state views';
