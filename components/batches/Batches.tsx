'use client';
// Batches: each batch's progress per stage, its counts, cap and failure policy, newest first, keyset-paged.
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useReplaceQuery } from '../useReplaceQuery';
import { withQuery } from '../api';
import { useLive } from '../live';
import { inputCls } from '../log/LogFilters';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { Pager, useKeysetPages } from '../ui/Pager';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { Elapsed, RelativeTime } from '../ui/Time';
import { cx } from '../ui/cx';
import { BatchStatusBadge } from './BatchBadge';
import { CreateDemoBatch } from './CreateDemoBatch';
import { CountsLine, Legend, StageStrip } from './StageBars';
import { BATCH_STATUSES, isActive, type BatchJson, type BatchPageJson } from './types';

const PAGE_SIZE = 25;

function ActiveStage({ b }: { b: BatchJson }) {
  if (b.activeStage === null)
    return (
      <span className="text-xs text-slate-400" data-testid="batch-active-stage">
        —
      </span>
    );
  const last = b.stages[b.stages.length - 1]?.stage ?? b.activeStage;
  return (
    <span className="whitespace-nowrap text-xs" data-testid="batch-active-stage" data-stage={b.activeStage}>
      <span className="tabular font-semibold text-amber-700">{b.activeStage}</span>
      <span className="text-slate-400"> of 0–{last}</span>
    </span>
  );
}

function Policy({ b }: { b: BatchJson }) {
  return (
    <span className="whitespace-nowrap text-xs text-slate-600">
      {b.maxParallel === null ? (
        'no cap'
      ) : (
        <>
          ≤ <span className="tabular font-medium">{b.maxParallel}</span> at once
        </>
      )}
      <span className="text-slate-300"> · </span>
      <span className={b.onFailure === 'abort' ? 'text-rose-700' : undefined}>
        {b.onFailure === 'abort' ? 'abort on failure' : 'continue on failure'}
      </span>
    </span>
  );
}

function BatchId({ b }: { b: BatchJson }) {
  return (
    <Link
      href={`/batches/${b.id}`}
      className="tabular whitespace-nowrap font-mono text-sm font-semibold text-brand-600 hover:text-brand-700 hover:underline"
      data-testid="batch-link"
    >
      #{b.id}
    </Link>
  );
}

const columns: Column<BatchJson>[] = [
  {
    key: 'id',
    header: 'Batch',
    cell: (b) => (
      <div>
        <BatchId b={b} />
        <div className="max-w-32 truncate text-xs text-slate-500" title={b.caller ?? ''}>
          {b.caller ?? '—'}
        </div>
      </div>
    ),
  },
  { key: 'status', header: 'Status', cell: (b) => <BatchStatusBadge status={b.status} testId="batch-status" /> },
  {
    key: 'stages',
    header: 'Stages',
    className: 'w-full min-w-56',
    cell: (b) => (
      <div className="space-y-1">
        <StageStrip batch={b} />
        <CountsLine c={b.totals} />
      </div>
    ),
  },
  { key: 'active', header: 'Active stage', cell: (b) => <ActiveStage b={b} /> },
  { key: 'policy', header: 'Cap · on failure', cell: (b) => <Policy b={b} /> },
  {
    key: 'elapsed',
    header: 'Elapsed',
    align: 'right',
    cell: (b) => (
      <div className="whitespace-nowrap text-right">
        <Elapsed
          from={b.createdAt}
          to={isActive(b) ? null : (b.completedAt ?? b.createdAt)}
          testId="batch-elapsed"
          className={cx('tabular font-mono text-xs', isActive(b) && 'font-semibold text-amber-700')}
        />
        <div className="text-[11px] text-slate-400">
          created <RelativeTime iso={b.createdAt} />
        </div>
      </div>
    ),
  },
];

function PhoneRow({ b }: { b: BatchJson }) {
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-2">
        <BatchId b={b} />
        <BatchStatusBadge status={b.status} testId="batch-status" />
        <span className="min-w-0 flex-1 truncate text-xs text-slate-500" title={b.caller ?? undefined}>
          {b.caller}
        </span>
        <Elapsed
          from={b.createdAt}
          to={isActive(b) ? null : (b.completedAt ?? b.createdAt)}
          testId="batch-elapsed"
          className={cx('tabular font-mono text-xs', isActive(b) && 'font-semibold text-amber-700')}
        />
      </div>
      <StageStrip batch={b} />
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <CountsLine c={b.totals} />
        {b.activeStage !== null && (
          <span className="text-xs text-slate-500">
            active stage <ActiveStage b={b} />
          </span>
        )}
      </div>
      <Policy b={b} />
    </div>
  );
}

function StatusFilter({ status, onChange }: { status: string; onChange: (s: string) => void }) {
  const options = ['', ...BATCH_STATUSES];
  return (
    <>
      <select aria-label="Status" value={status} onChange={(e) => onChange(e.target.value)} className={`${inputCls} w-36 sm:hidden`}>
        {options.map((s) => (
          <option key={s || 'all'} value={s}>
            {s || 'all statuses'}
          </option>
        ))}
      </select>
      <div role="group" aria-label="Status" className="hidden rounded-md bg-white p-0.5 shadow-xs ring-1 ring-slate-200 sm:flex">
        {options.map((s) => (
          <button
            key={s || 'all'}
            type="button"
            aria-pressed={s === status}
            data-testid={`batch-filter-${s || 'all'}`}
            onClick={() => onChange(s)}
            className={cx(
              'rounded px-2 py-1 text-xs font-medium',
              s === status ? 'bg-slate-900 text-white' : 'text-slate-600 hover:bg-slate-100',
            )}
          >
            {s || 'all'}
          </button>
        ))}
      </div>
    </>
  );
}

export function Batches() {
  const sp = useSearchParams();
  const status = sp.get('status') ?? '';
  const cursor = sp.get('cursor') ?? '';
  const navigate = useReplaceQuery();

  const url = withQuery('/api/batches', { status, cursor, limit: PAGE_SIZE });
  const q = useLive<BatchPageJson>(['batches', url], url, { keepPrevious: true });
  const items = q.data?.items ?? [];

  const pages = useKeysetPages(status, cursor, (c) => navigate({ status, cursor: c }));
  const setStatus = (s: string) => navigate({ status: s });

  return (
    <>
      <PageHeader
        title="Batches"
        description={
          'Ordered stages of parallel tasks: a stage starts when every task of the stages before it is done; a ' +
          'cap bounds how many run at once.'
        }
        actions={<CreateDemoBatch />}
      />
      {q.data && <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />}
      <Card testId="batches-card">
        <CardHeader
          title={cursor ? `Batches older than #${cursor}` : 'Newest batches'}
          subtitle={<Legend />}
          actions={<StatusFilter status={status} onChange={setStatus} />}
        />
        {q.isPending ? (
          <LoadingState rows={5} />
        ) : q.isError && !q.data ? (
          <ErrorState error={q.error} onRetry={() => void q.refetch()} />
        ) : items.length === 0 ? (
          <EmptyState title={status ? `No ${status} batches` : cursor ? 'No older batches' : 'No batches yet'} icon="batches">
            {status || cursor ? (
              'Try another status.'
            ) : (
              <>
                Create one with <strong>Create demo staged batch</strong>, <code className="font-mono">readpast batch create</code> or{' '}
                <code className="font-mono">POST /api/batches</code>.
              </>
            )}
          </EmptyState>
        ) : (
          <DataTable
            testId="batch-table"
            rows={items}
            columns={columns}
            rowKey={(b) => b.id}
            rowAttrs={(b) => ({ 'data-testid': 'batch-row', 'data-batch': String(b.id), 'data-status': b.status })}
            phoneRow={(b) => <PhoneRow b={b} />}
          />
        )}
        <Pager
          info={`${cursor ? `Older than #${cursor}` : 'Newest first'} · ${items.length} shown`}
          cursor={cursor}
          nextCursor={q.data?.nextCursor}
          onNewer={pages.newer}
          onOlder={() => pages.older(q.data?.nextCursor)}
          testId="batch"
        />
      </Card>
    </>
  );
}
