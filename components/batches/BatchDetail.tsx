'use client';
// One batch: status, cap and failure policy, release / cancel, per-stage progress, the timeline of its
// attempts, and its tasks.
import Link from 'next/link';
import { ApiError } from '../api';
import { formatLocal, formatNumber } from '../format';
import { useLive } from '../live';
import { Card, CardHeader, Field, PageHeader } from '../ui/Card';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { Elapsed, RelativeTime } from '../ui/Time';
import { BatchActions } from './BatchActions';
import { BatchStatusBadge } from './BatchBadge';
import { BatchTasks } from './BatchTasks';
import { Legend, SegmentBar } from './StageBars';
import { StageProgress } from './StageProgress';
import { Timeline } from './Timeline';
import { isActive, type BatchDetailJson } from './types';

function When({ iso }: { iso: string | null }) {
  if (!iso) return <span className="text-slate-400">—</span>;
  return (
    <span title={iso}>
      <RelativeTime iso={iso} /> <span className="block text-xs text-slate-400">{formatLocal(iso)}</span>
    </span>
  );
}

function Summary({ b }: { b: BatchDetailJson }) {
  const last = b.stages[b.stages.length - 1]?.stage;
  const done = b.totals.succeeded + b.totals.dead + b.totals.cancelled;
  return (
    <Card testId="batch-summary">
      <CardHeader title="Summary" />
      <div className="px-4 pt-4">
        <div className="mb-1 flex items-baseline justify-between text-xs text-slate-500">
          <span>
            <span className="tabular text-lg font-semibold text-slate-900" data-testid="batch-done">
              {formatNumber(done)}
            </span>{' '}
            / <span data-testid="batch-total">{formatNumber(b.totals.total)}</span> tasks done
          </span>
          <Elapsed
            from={b.createdAt}
            to={isActive(b) ? null : (b.completedAt ?? b.createdAt)}
            testId="batch-elapsed"
            className="tabular font-mono text-sm font-semibold text-slate-700"
          />
        </div>
        <SegmentBar c={b.totals} className="h-2.5" />
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-4 p-4">
        <Field label="Active stage">
          <span data-testid="batch-active-stage" data-stage={b.activeStage ?? ''}>
            {b.activeStage === null ? (
              <span className="text-slate-400">{b.stages.length ? 'none (all done)' : 'none (no tasks)'}</span>
            ) : (
              <>
                <span className="tabular text-lg font-semibold text-amber-700">{b.activeStage}</span>
                {last !== undefined && <span className="text-xs text-slate-400"> of 0–{last}</span>}
              </>
            )}
          </span>
        </Field>
        <Field label="Cap">
          <span data-testid="batch-cap">
            {b.maxParallel === null ? (
              'none'
            ) : (
              <>
                at most <span className="tabular font-semibold">{b.maxParallel}</span> at once
              </>
            )}
          </span>
        </Field>
        <Field label="On failure">
          <span data-testid="batch-on-failure" className={b.onFailure === 'abort' ? 'text-rose-700' : undefined}>
            {b.onFailure === 'abort' ? 'abort remaining stages' : 'continue'}
          </span>
        </Field>
        <Field label="Caller">{b.caller ?? '—'}</Field>
        <Field label="Created">
          <When iso={b.createdAt} />
        </Field>
        <Field label="Released">
          <When iso={b.releasedAt} />
        </Field>
        <Field label="Finished">
          <When iso={b.completedAt} />
        </Field>
      </dl>
    </Card>
  );
}

export function BatchDetail({ id }: { id: string }) {
  const q = useLive<BatchDetailJson>(['batch', id], `/api/batches/${encodeURIComponent(id)}`);
  const b = q.data;

  if (q.isPending) {
    return (
      <>
        <PageHeader title={`Batch ${id}`} />
        <Card>
          <LoadingState rows={6} />
        </Card>
      </>
    );
  }
  if (!b) {
    const notFound = q.error instanceof ApiError && (q.error.status === 404 || q.error.status === 400);
    return (
      <>
        <PageHeader title={`Batch ${id}`} />
        <Card>
          {notFound ? (
            <EmptyState title="No such batch" icon="help" testId="batch-not-found">
              {q.error?.message}.{' '}
              <Link className="text-brand-600 hover:underline" href="/batches">
                See every batch
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

  return (
    <>
      <PageHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            Batch <span className="tabular font-mono">#{b.id}</span>
            <BatchStatusBadge status={b.status} testId="batch-status" />
          </span>
        }
        meta={
          <p className="mt-1 text-sm text-slate-500">
            {counted(b.stages.length, 'stage')} · {counted(b.totals.total, 'task')} ·{' '}
            <Link href="/batches" className="text-brand-600 hover:underline">
              all batches
            </Link>{' '}
            ·{' '}
            <Link href={`/log?batch=${b.id}`} className="text-brand-600 hover:underline" data-testid="batch-log-link">
              its execution log
            </Link>
          </p>
        }
        actions={<BatchActions batch={b} />}
      />
      <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />

      <div className="mb-5 grid gap-5 lg:grid-cols-3">
        <Summary b={b} />
        <Card className="lg:col-span-2" testId="batch-stages">
          <CardHeader title="Stages" subtitle={<Legend />} />
          {b.stages.length === 0 ? (
            <EmptyState title="No tasks yet" icon="tasks">
              {b.status === 'open' ? 'This batch is open: add tasks to its stages, then release it.' : 'This batch never got any task.'}
            </EmptyState>
          ) : (
            <StageProgress batch={b} />
          )}
        </Card>
      </div>

      <div className="space-y-5">
        <Timeline batch={b} />
        <BatchTasks tasks={b.tasks} total={b.totals.total} stages={b.stages.map((s) => s.stage)} />
      </div>
    </>
  );
}

/** `3 stages`, `1 task` */
function counted(n: number, noun: string): string {
  return `${formatNumber(n)} ${noun}${n === 1 ? '' : 's'}`;
}
