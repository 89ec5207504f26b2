'use client';
// One task by token: what it runs, with what, how it ended, and every attempt with its error and stack.
import Link from 'next/link';
import { useState } from 'react';
import type { StatusJson } from '../api';
import { ApiError } from '../api';
import { formatDuration, formatLocal } from '../format';
import { useLive } from '../live';
import { Badge, KindBadge, StatusBadge } from '../ui/Badge';
import { Card, CardHeader, Field, PageHeader } from '../ui/Card';
import { JsonBlock } from '../ui/JsonBlock';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { Elapsed, RelativeTime } from '../ui/Time';
import { cx } from '../ui/cx';
import { AttemptsTimeline } from './AttemptsTimeline';
import { lastErrorContext } from './lastError';
import { LogTail } from './LogTail';
import { RetriedNote } from './RetriedNote';
import { StepsTimeline } from './StepsTimeline';
import { TaskActions } from './TaskActions';
import { TaskLinks } from './TaskLinks';
import { TraceLink } from './TraceLink';
import { WhyPanel } from './WhyPanel';

function When({ iso }: { iso: string | null }) {
  if (!iso) return <span className="text-slate-400">—</span>;
  return (
    <span>
      <RelativeTime iso={iso} /> <span className="text-xs text-slate-400">{formatLocal(iso)}</span>
    </span>
  );
}

function CopyToken({ token }: { token: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="rounded px-1.5 py-0.5 text-xs text-slate-500 hover:bg-slate-100 hover:text-slate-800"
      onClick={() => {
        void navigator.clipboard?.writeText(token).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? 'copied' : 'copy'}
    </button>
  );
}

/** `traceUrl`: READPAST_TRACE_URL, the tracing backend's page of a trace (`{traceId}` in it), or null */
export function TaskDetail({ token, traceUrl = null }: { token: string; traceUrl?: string | null }) {
  const q = useLive<StatusJson>(['task', token], `/api/tasks/${encodeURIComponent(token)}`);
  const t = q.data;

  if (q.isPending) {
    return (
      <>
        <PageHeader title="Task" meta={<p className="mt-1 font-mono text-xs text-slate-500">{token}</p>} />
        <Card>
          <LoadingState rows={6} />
        </Card>
      </>
    );
  }
  if (!t) {
    const notFound = q.error instanceof ApiError && (q.error.status === 404 || q.error.status === 400);
    return (
      <>
        <PageHeader title="Task" meta={<p className="mt-1 font-mono text-xs text-slate-500">{token}</p>} />
        <Card>
          {notFound ? (
            <EmptyState title="No such task" icon="help" testId="task-not-found">
              {q.error?.message}. It may have been deleted or pruned after the retention period.{' '}
              <Link className="text-brand-600 hover:underline" href="/log">
                Search the execution log
              </Link>
              .
            </EmptyState>
          ) : (
            <ErrorState error={q.error} onRetry={() => void q.refetch()} />
          )}
        </Card>
      </>
    );
  }

  const running = t.status === 'running';
  const lastError = lastErrorContext(t);
  return (
    <>
      <PageHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            <span className="break-all font-mono">{t.command.length > 80 ? `${t.command.slice(0, 80)}…` : t.command}</span>
            <StatusBadge status={t.status} testId="task-status" />
            {t.suspended && (
              <Badge tone={t.suspended === 'sleep' ? 'blue' : 'violet'} dot testId="task-suspended">
                {t.suspended === 'sleep' ? 'sleeping' : 'waiting for event'}
              </Badge>
            )}
            {t.cancelRequested && running && <Badge tone="amber">cancel requested</Badge>}
          </span>
        }
        meta={
          <>
            <p className="mt-1 flex flex-wrap items-center gap-1 font-mono text-xs text-slate-500" data-testid="task-token">
              {t.token}
              <CopyToken token={t.token} />
            </p>
            <RetriedNote task={t} className="mt-1" />
          </>
        }
        actions={<TaskActions task={t} />}
      />
      <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />
      {(t.status === 'pending' || t.status === 'waiting') && <WhyPanel token={t.token} queue={t.queue} />}

      <div className="grid gap-5 lg:grid-cols-3">
        <div className="space-y-5 lg:col-span-2">
          <Card>
            <CardHeader title="Task" />
            <dl className="grid grid-cols-2 gap-x-6 gap-y-4 p-4 sm:grid-cols-3">
              <Field label="Kind">
                <KindBadge kind={t.kind} />
              </Field>
              <Field label="Queue">
                <Link href={`/log?queue=${encodeURIComponent(t.queue)}`} className="font-mono hover:underline">
                  {t.queue}
                </Link>
              </Field>
              <Field label="Attempts">
                <span className="tabular" data-testid="task-attempts">
                  {t.attempts} / {t.maxAttempts}
                </span>
                {t.suspensions > 0 && (
                  <span className="block text-xs text-slate-500" title="Attempts that ended in a sleep or a wait are not failures">
                    {t.suspensions} suspended, not counted
                  </span>
                )}
              </Field>
              <Field label="Priority">
                <span className="tabular">{t.priority}</span>
              </Field>
              <Field label="Timeout">{t.timeoutMs === null ? 'none' : formatDuration(t.timeoutMs)}</Field>
              <Field label="Caller">{t.caller ?? '—'}</Field>
              <Field label="Created">
                <When iso={t.createdAt} />
              </Field>
              <Field label="Run after">
                {/* an event wait with no timeout: run-after is the never-reached 9999-12-31 (types/durable.ts) */}
                {t.suspended === 'event' && t.runAfter?.startsWith('9999-') ? (
                  <span className="text-slate-600">when its event comes (no timeout)</span>
                ) : (
                  <When iso={t.runAfter} />
                )}
              </Field>
              <Field label={running ? 'Running for' : 'Duration'}>
                {/* a suspended task's last attempt ended without a finish time: nothing ticks */}
                {t.startedAt && !t.suspended ? (
                  <Elapsed from={t.startedAt} to={running ? null : t.finishedAt} className="tabular font-mono text-sm" />
                ) : (
                  '—'
                )}
              </Field>
              <Field label="Started">
                <When iso={t.startedAt} />
              </Field>
              <Field label="Finished">
                <When iso={t.finishedAt} />
              </Field>
              <Field label="Worker">
                <span className="break-all font-mono text-xs">{t.workerId ?? '—'}</span>
              </Field>
              {t.batchId !== null && (
                <Field label="Batch">
                  <Link href={`/batches/${t.batchId}`} className="text-violet-700 hover:underline" data-testid="task-batch">
                    #{t.batchId}
                    {t.stage !== null && `, stage ${t.stage}`}
                  </Link>
                  <Link href={`/log?batch=${t.batchId}`} className="ml-2 text-xs text-slate-500 hover:text-violet-700 hover:underline">
                    log
                  </Link>
                </Field>
              )}
              {t.flowId !== null && (
                <Field label="Flow">
                  <Link href={`/flows/${t.flowId}`} className="text-brand-700 hover:underline" data-testid="task-flow">
                    #{t.flowId}
                    {t.flowNode !== null && <span className="font-mono">, node {t.flowNode}</span>}
                  </Link>
                  <Link href={`/tasks?flow=${t.flowId}`} className="ml-2 text-xs text-slate-500 hover:text-brand-700 hover:underline">
                    tasks
                  </Link>
                </Field>
              )}
              {t.concurrencyKey !== null && (
                <Field label="Concurrency key" wide>
                  <Link
                    href={`/tasks?queue=${encodeURIComponent(t.queue)}&key=${encodeURIComponent(t.concurrencyKey)}`}
                    className="break-all font-mono text-xs text-brand-700 hover:underline"
                    title="Tasks of this key in this queue"
                    data-testid="task-concurrency-key"
                  >
                    {t.concurrencyKey}
                  </Link>
                </Field>
              )}
              {t.dedupKey && (
                <Field label="Dedup key" wide>
                  <span className="font-mono text-xs">{t.dedupKey}</span>
                </Field>
              )}
              {t.traceId && (
                <Field label="Trace" wide>
                  <TraceLink traceId={t.traceId} url={traceUrl} testId="task-trace" />
                </Field>
              )}
            </dl>
            {t.kind !== 'handler' && (
              <div className="border-t border-slate-100 p-4">
                <p className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-400">{t.kind === 'sql' ? 'SQL' : 'Procedure'}</p>
                <pre className="overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100">{t.command}</pre>
              </div>
            )}
          </Card>

          <StepsTimeline task={t} />

          <LogTail task={t} />

          <Card testId="attempts-card">
            <CardHeader title="Attempts" subtitle={`${t.history.length} logged in ExecutionLog`} />
            {t.history.length === 0 ? (
              <EmptyState title="Not started yet" icon="hourglass">
                {t.status === 'pending' ? (
                  <>
                    Not claimed yet (the reason is above); due <RelativeTime iso={t.runAfter} />.
                  </>
                ) : t.status === 'waiting' ? (
                  'Waiting for its parents: it becomes pending once every parent has succeeded.'
                ) : (
                  'This task never ran.'
                )}
              </EmptyState>
            ) : (
              <AttemptsTimeline history={t.history} traceUrl={traceUrl} taskTraceId={t.traceId} />
            )}
          </Card>
        </div>

        <div className="space-y-5">
          <TaskLinks task={t} />
          <Card>
            <CardHeader title={t.kind === 'procedure' ? 'Parameters' : 'Payload'} />
            <div className="p-4">
              <JsonBlock value={t.payload} empty="no payload" testId="task-payload" />
            </div>
          </Card>
          <Card>
            <CardHeader title="Result" />
            <div className="p-4">
              <JsonBlock value={t.result} empty={t.status === 'succeeded' ? 'no result (null)' : 'no result yet'} testId="task-result" />
            </div>
          </Card>
          {t.lastError && lastError && (
            <Card>
              <CardHeader title={lastError.current ? 'Last error' : 'Earlier error'} />
              <div
                className="space-y-2 p-4"
                data-testid="task-last-error"
                data-current={lastError.current ? '1' : '0'}
                data-attempt={lastError.attempt ?? undefined}
              >
                <p className="text-xs font-medium text-slate-600" data-testid="task-last-error-label">
                  {lastError.label}:
                </p>
                <p className={cx('break-words text-sm', lastError.current ? 'text-rose-800' : 'text-slate-600')}>
                  {t.lastError.number !== null && (
                    <span
                      className={cx(
                        'mr-1.5 rounded px-1 font-mono text-xs',
                        lastError.current ? 'bg-rose-100 text-rose-700' : 'bg-slate-100 text-slate-600',
                      )}
                    >
                      #{t.lastError.number}
                    </span>
                  )}
                  {t.lastError.message}
                </p>
                {!lastError.current && t.status === 'succeeded' && (
                  <p className="text-xs text-slate-500" data-testid="task-last-error-note">
                    The task succeeded; this error is kept from an earlier attempt (every attempt is under Attempts).
                  </p>
                )}
              </div>
            </Card>
          )}
        </div>
      </div>
    </>
  );
}
