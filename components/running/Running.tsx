'use client';
// ExecutionStatus: the attempts running right now, with their worker's session, a payload preview and a
// ticking elapsed time; filtered by queue / command, sorted by elapsed, cancelled one by one or as a
// selection. When the server stops answering, the rows are marked stale and every action is disabled.
import { useCanOperate } from '../role';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { cancelTask } from '@/app/actions';
import type { RunningJson, RunningListJson } from '../api';
import { useLive, useNow } from '../live';
import { useAction } from '../useAction';
import { clearRetried } from '../task/retried';
import { Badge, KindBadge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { ConfirmButton } from '../ui/ConfirmButton';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { EmptyState, ErrorState, LoadingState, Notice, StaleBanner } from '../ui/States';
import { Elapsed, RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import { cx } from '../ui/cx';
import { formatLocal } from '../format';
import { useIsMssql } from '../enqueue/storeInfo';
import { blockingChains } from './chains';
import { KillButton, killable } from './KillButton';
import { ChainMarks, chainTitle, LiveState } from './LiveState';
import { ClaimedAhead } from './ClaimedAhead';
import { ProgressCell } from './ProgressCell';
import { RunningToolbar, SelectionBar, applyView, isStale, type RunningViewState } from './RunningToolbar';

const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;

function CancelButton(props: { row: RunningJson; disabled?: boolean }) {
  return useCanOperate() ? <CancelControl {...props} /> : null;
}

function CancelControl({ row, disabled }: { row: RunningJson; disabled?: boolean }) {
  const [asked, setAsked] = useState(false);
  const cancel = useAction(cancelTask, {
    success: (r) => (r.status === 'cancelled' ? 'Task cancelled' : 'Cancel requested; the handler stops at its next check'),
  });
  const pending = row.cancelRequested || asked;
  return (
    <ConfirmButton
      size="sm"
      variant="secondary"
      busy={cancel.busy}
      disabled={pending || disabled}
      data-testid="cancel-running"
      confirm={{
        title: 'Cancel 1 running task?',
        label: 'Cancel 1 task',
        body: (
          <>
            <span className="font-mono">{row.command}</span> on {row.queue}: its handler is asked to stop (its AbortSignal fires) and the
            attempt is recorded as cancelled.
          </>
        ),
      }}
      onConfirm={async () => {
        const r = await cancel.run(row.token);
        if (r.ok) {
          clearRetried(row.token);
          setAsked(true);
        }
      }}
    >
      {pending ? 'Cancelling…' : 'Cancel'}
    </ConfirmButton>
  );
}

/** the first characters of the payload (JSON text), the whole preview in the tooltip */
function PayloadPreview({ r }: { r: RunningJson }) {
  const text = r.payloadPreview ?? null;
  if (text === null) return <span className="text-xs text-slate-300">—</span>;
  return (
    <span className="block max-w-48 truncate font-mono text-[11px] text-slate-600" title={text} data-testid="running-payload">
      {text}
    </span>
  );
}

export function Running() {
  const q = useLive<RunningListJson>(['running'], '/api/running');
  const now = useNow();
  const [view, setView] = useState<RunningViewState>({ queue: '', command: '', sort: 'chain' });
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const all = q.data?.items ?? [];
  const items = useMemo(() => applyView(all, view), [all, view]);
  // no answer for over two polls (or the last one failed): what is shown may have ended already
  const stale = q.data !== undefined && isStale(q.isError, q.dataUpdatedAt, now);
  const frozenAt = stale ? new Date(q.dataUpdatedAt).toISOString() : null;
  const selected = items.filter((r) => picked.has(r.token)).map((r) => r.token);
  const toggle = (token: string) =>
    setPicked((s) => {
      const n = new Set(s);
      if (n.has(token)) n.delete(token);
      else n.add(token);
      return n;
    });
  const allPicked = items.length > 0 && items.every((r) => picked.has(r.token));
  // SQL Server: the server's request state could not be read (permission, timeout, a missing DMV)
  const liveOff = q.data?.liveStatus && !q.data.liveStatus.available ? q.data.liveStatus : null;
  // SQL Server: this login may not KILL (a permission or view it lacks): the button is disabled with the reason
  const killOff = q.data?.liveStatus?.canKill === false ? (q.data.liveStatus.killRefusal ?? 'this login may not KILL sessions') : null;
  const anyLive = items.some((r) => r.live);
  // SQL Server: blocked tasks listed under the task whose session blocks them
  const chain = useMemo(() => blockingChains(items), [items]);
  const mssql = useIsMssql();
  const indent = (r: RunningJson) => ({ paddingLeft: `${(chain.info.get(r.attemptId)?.depth ?? 0) * 1.25}rem` });
  // SQL Server adds the server state and Kill session: worker, attempt and start move into other cells to keep the table narrow
  const compact = anyLive || mssql;

  const allColumns: Column<RunningJson>[] = [
    {
      key: 'select',
      header: (
        <input
          type="checkbox"
          aria-label="Select every running task shown"
          data-testid="running-select-all"
          checked={allPicked}
          disabled={stale}
          onChange={() => setPicked(allPicked ? new Set() : new Set(items.map((r) => r.token)))}
        />
      ),
      cell: (r) => (
        <input
          type="checkbox"
          aria-label={`Select ${r.token}`}
          data-testid="running-select"
          checked={picked.has(r.token)}
          disabled={stale}
          onChange={() => toggle(r.token)}
        />
      ),
    },
    {
      key: 'task',
      header: 'Task',
      mobile: 'primary',
      pin: 'start',
      cell: (r) => (
        <div style={indent(r)} title={chainTitle(chain.info.get(r.attemptId))}>
          <div className="flex min-w-0 items-center gap-2">
            {(chain.info.get(r.attemptId)?.depth ?? 0) > 0 && (
              <span className="text-slate-400" aria-hidden>
                ↳
              </span>
            )}
            <TokenLink token={r.token} testId="running-token" />
            <KindBadge kind={r.kind} />
            {compact && (
              <span className="tabular whitespace-nowrap text-xs text-slate-500">
                attempt {r.attempt}/{r.maxAttempts}
              </span>
            )}
            {!compact && (
              <Link
                href={`/tasks/${r.token}`}
                className="max-w-72 truncate font-mono text-xs text-slate-800 hover:underline"
                title={r.command}
                data-testid="running-command"
              >
                {r.command}
              </Link>
            )}
            {r.cancelRequested && <Badge tone="amber">cancel requested</Badge>}
          </div>
          {compact && (
            <Link
              href={`/tasks/${r.token}`}
              className="mt-0.5 block max-w-72 truncate font-mono text-xs text-slate-800 hover:underline"
              title={r.command}
              data-testid="running-command"
            >
              {r.command}
            </Link>
          )}
          <ChainMarks chain={chain.info.get(r.attemptId)} />
        </div>
      ),
    },
    { key: 'payload', header: 'Payload', cell: (r) => <PayloadPreview r={r} /> },
    // progress a handler reported (ctx.progress): the percent, a bar and its last message
    ...(items.some((r) => r.progress)
      ? [{ key: 'progress', header: 'Progress', cell: (r: RunningJson) => <ProgressCell progress={r.progress} /> }]
      : []),
    {
      key: 'queue',
      header: 'Queue',
      cell: (r) => (
        <div className="text-xs">
          <span className="inline-block max-w-40 truncate whitespace-nowrap align-bottom font-mono" title={r.queue}>
            {r.queue}
          </span>
          {r.tokenNo !== null && (
            <span className="ml-1.5 text-slate-400" title="concurrency token held by this attempt">
              token {r.tokenNo}
            </span>
          )}
          {r.batchId !== null && (
            <Link href={`/batches/${r.batchId}`} className="block whitespace-nowrap text-violet-700 hover:underline">
              batch {r.batchId}
              {r.stage !== null && ` · stage ${r.stage}`}
            </Link>
          )}
        </div>
      ),
    },
    {
      key: 'worker',
      header: 'Worker',
      cell: (r) => (
        <span className="block max-w-48 truncate font-mono text-xs text-slate-600" title={r.workerId}>
          {r.workerId}
        </span>
      ),
    },
    {
      key: 'session',
      header: 'Session',
      align: compact ? 'left' : 'right',
      cell: (r) =>
        compact ? (
          <div className="text-xs">
            <span className="whitespace-nowrap font-mono text-slate-800">
              SPID{' '}
              <span className="tabular" data-testid="running-session">
                {r.session ?? '—'}
              </span>
            </span>
            <span className="block max-w-36 truncate font-mono text-[11px] text-slate-500" title={r.workerId}>
              {r.workerId}
            </span>
          </div>
        ) : (
          <span className="tabular font-mono text-xs" data-testid="running-session">
            {r.session ?? '—'}
          </span>
        ),
    },
    {
      key: 'attempt',
      header: 'Attempt',
      align: 'right',
      cell: (r) => (
        <span className="tabular text-xs">
          {r.attempt} / {r.maxAttempts}
        </span>
      ),
    },
    { key: 'started', header: 'Started', cell: (r) => <RelativeTime iso={r.startedAt} className="text-xs text-slate-600" /> },
    {
      key: 'elapsed',
      header: (
        <button
          type="button"
          className="inline-flex items-center gap-1 font-semibold uppercase tracking-wide hover:text-slate-900"
          data-testid="sort-elapsed"
          aria-label="Sort by elapsed time"
          onClick={() => setView((v) => ({ ...v, sort: v.sort === 'elapsed_desc' ? 'elapsed_asc' : 'elapsed_desc' }))}
        >
          Elapsed
          <span aria-hidden className="text-slate-400">
            {view.sort === 'elapsed_desc' ? '↓' : view.sort === 'elapsed_asc' ? '↑' : '↕'}
          </span>
        </button>
      ),
      align: 'right',
      cell: (r) => (
        <span className="whitespace-nowrap" title={`started ${formatLocal(r.startedAt)}`}>
          <Elapsed from={r.startedAt} to={frozenAt} testId="running-elapsed" />
        </span>
      ),
    },
    ...(anyLive
      ? [
          {
            key: 'live',
            header: 'Server state',
            cell: (r: RunningJson) => (r.live ? <LiveState live={r.live} /> : <span className="text-xs text-slate-400">—</span>),
          },
        ]
      : []),
    {
      key: 'actions',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      pin: 'end',
      cell: (r) => (
        <div className={cx('flex justify-end gap-1.5', compact && 'flex-col items-end')}>
          <CancelButton row={r} disabled={stale} />
          {mssql && killable(r) && <KillButton row={r} disabled={stale} refusal={killOff} />}
        </div>
      ),
    },
  ];
  // the start time is in the elapsed cell's tooltip: its own column only where there is room
  const columns = allColumns.filter((c) => !(compact && ['worker', 'attempt'].includes(c.key)) && c.key !== 'started');

  return (
    <>
      <PageHeader
        title="Running"
        description={
          'ExecutionStatus: every attempt running right now, on which worker and database session ' +
          '(tasks a pool claimed ahead are listed apart below: they have not started).'
        }
      />
      {q.data && !stale && <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />}
      {stale && (
        <div className="mb-4" data-testid="running-stale">
          <Notice tone="error">
            <b>The server cannot be reached.</b> The rows below are as of <RelativeTime iso={frozenAt} /> and may have ended since; actions
            are disabled until it answers again.
          </Notice>
        </div>
      )}
      {liveOff && (
        <div className="mb-4" data-testid="running-live-off">
          <Notice tone="info">
            <b>Server state is not shown.</b>{' '}
            <span data-testid="running-live-reason">{sentence(liveOff.reason ?? 'the server state views cannot be read')}</span> The list
            below is readpast&apos;s own record of what runs.
          </Notice>
        </div>
      )}
      {killOff && mssql && items.some(killable) && (
        <div className="mb-4" data-testid="running-kill-off">
          <Notice tone="info">
            <b>Kill session is not available.</b> <span data-testid="running-kill-reason">{sentence(killOff)}</span>
          </Notice>
        </div>
      )}
      <Card testId="running-card">
        <CardHeader
          title={
            q.data
              ? items.length === all.length
                ? `${all.length} running`
                : `${items.length} of ${all.length} running`
              : 'Running attempts'
          }
          actions={q.data && all.length > 0 ? <RunningToolbar items={all} view={view} onView={setView} /> : undefined}
          subtitle={
            anyLive
              ? 'Elapsed time and the server state (sys.dm_exec_requests) refresh every second; a blocked task is listed ' +
                'under the task whose session blocks it.'
              : 'Elapsed time ticks live; cancelling a running handler is cooperative (its AbortSignal fires).'
          }
        />
        {q.isPending ? (
          <LoadingState />
        ) : q.isError && !q.data ? (
          <ErrorState error={q.error} onRetry={() => void q.refetch()} />
        ) : all.length === 0 ? (
          <EmptyState title="Nothing is running" icon="pause">
            Idle workers pick up due tasks within a second of their enqueue.
          </EmptyState>
        ) : items.length === 0 ? (
          <EmptyState title="No running task matches this filter" />
        ) : (
          <>
            <SelectionBar selected={selected} disabled={stale} onDone={() => setPicked(new Set())} />
            <DataTable
              testId="running-table"
              rows={view.sort === 'chain' ? chain.rows : items}
              columns={columns}
              rowKey={(r) => r.attemptId}
              rowAttrs={(r) => ({
                'data-testid': 'running-row',
                'data-token': r.token,
                'data-depth': String(chain.info.get(r.attemptId)?.depth ?? 0),
                'data-blocked-by': chain.info.get(r.attemptId)?.blocker ? String(chain.info.get(r.attemptId)!.blocker!.session) : undefined,
                'data-stale': stale ? 'true' : undefined,
              })}
              rowClassName={(r) => cx(chain.info.get(r.attemptId)?.blocker && 'bg-rose-50', stale && 'opacity-50')}
              phoneRow={(r) => (
                <div className="space-y-1.5" style={indent(r)}>
                  <div className="flex items-center gap-2">
                    <input
                      type="checkbox"
                      aria-label={`Select ${r.token}`}
                      data-testid="running-select"
                      checked={picked.has(r.token)}
                      disabled={stale}
                      onChange={() => toggle(r.token)}
                    />
                    <span
                      className="min-w-0 flex-1 truncate font-mono text-sm text-slate-900"
                      title={r.command}
                      data-testid="running-command"
                    >
                      {r.command}
                    </span>
                    <Elapsed
                      from={r.startedAt}
                      to={frozenAt}
                      testId="running-elapsed"
                      className="tabular font-mono text-sm font-semibold text-amber-700"
                    />
                  </div>
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-500">
                    <TokenLink token={r.token} testId="running-token" />
                    <span className="font-mono">{r.queue}</span>
                    {r.tokenNo !== null && <span>token {r.tokenNo}</span>}
                    {r.batchId !== null && (
                      <Link href={`/batches/${r.batchId}`} className="text-violet-700">
                        batch {r.batchId}
                        {r.stage !== null && ` · stage ${r.stage}`}
                      </Link>
                    )}
                    <span>
                      attempt {r.attempt}/{r.maxAttempts}
                    </span>
                    <span className="font-mono">
                      spid <span data-testid="running-session">{r.session ?? '—'}</span>
                    </span>
                    <span>
                      started <RelativeTime iso={r.startedAt} />
                    </span>
                  </div>
                  <div className="flex items-center justify-between gap-2">
                    <span className="min-w-0 truncate font-mono text-xs text-slate-400" title={r.workerId}>
                      {r.workerId}
                    </span>
                    <div className="flex gap-1.5">
                      <CancelButton row={r} disabled={stale} />
                      {mssql && killable(r) && <KillButton row={r} disabled={stale} refusal={killOff} />}
                    </div>
                  </div>
                  <PayloadPreview r={r} />
                  <ChainMarks chain={chain.info.get(r.attemptId)} />
                  {r.live && <LiveState live={r.live} />}
                  {r.progress && <ProgressCell progress={r.progress} />}
                </div>
              )}
            />
          </>
        )}
      </Card>
      <ClaimedAhead claimed={q.data?.claimed} />
    </>
  );
}
