'use client';
// Flows: graphs of tasks created at once (rp.flow, POST /api/flows), newest first, keyset-paged, with their
// nodes by state; `?unfinished=1|0` keeps the open or the finished ones.
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { withQuery } from '../api';
import { formatNumber } from '../format';
import { useLive } from '../live';
import { useReplaceQuery } from '../useReplaceQuery';
import { Badge } from '../ui/Badge';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { Pager, useKeysetPages } from '../ui/Pager';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState, StaleBanner } from '../ui/States';
import { Elapsed, RelativeTime } from '../ui/Time';
import { cx } from '../ui/cx';
import { CountsBar } from './FlowCounts';
import { counted, FLOW_STATES, flowState, isOpen, STATE_STYLE, type FlowPageJson, type FlowSummaryJson } from './types';

const PAGE_SIZE = 25;

function FlowId({ f }: { f: FlowSummaryJson }) {
  return (
    <Link
      href={`/flows/${f.id}`}
      className="tabular whitespace-nowrap font-mono text-sm font-semibold text-brand-600 hover:text-brand-700 hover:underline"
      data-testid="flow-link"
    >
      #{f.id}
    </Link>
  );
}

function State({ f }: { f: FlowSummaryJson }) {
  const s = flowState(f);
  return (
    <Badge tone={s.tone} dot pulse={s.label === 'running'} testId="flow-state">
      {s.label}
    </Badge>
  );
}

function Counts({ f }: { f: FlowSummaryJson }) {
  return (
    <div className="space-y-1">
      <CountsBar counts={f.counts} total={f.nodes} />
      <p className="flex flex-wrap gap-x-2.5 text-[11px] text-slate-500">
        {FLOW_STATES.filter((s) => f.counts[s] > 0).map((s) => (
          <span key={s} className="inline-flex items-center gap-1 whitespace-nowrap">
            <span className={cx('size-1.5 rounded-full', STATE_STYLE[s].bar)} />
            <span className="tabular font-medium text-slate-700">{formatNumber(f.counts[s])}</span> {s}
          </span>
        ))}
      </p>
    </div>
  );
}

function Time({ f }: { f: FlowSummaryJson }) {
  return (
    <div className="whitespace-nowrap text-right">
      <Elapsed
        from={f.createdAt}
        to={isOpen(f) ? null : (f.finishedAt ?? f.createdAt)}
        className={cx('tabular font-mono text-xs', isOpen(f) && 'font-semibold text-amber-700')}
      />
      <div className="text-[11px] text-slate-400">
        created <RelativeTime iso={f.createdAt} />
      </div>
    </div>
  );
}

const columns: Column<FlowSummaryJson>[] = [
  {
    key: 'id',
    header: 'Flow',
    cell: (f) => (
      <div>
        <FlowId f={f} />
        <div className="max-w-40 truncate text-xs text-slate-500" title={f.name ?? ''}>
          {f.name ?? f.caller ?? '—'}
        </div>
      </div>
    ),
  },
  { key: 'state', header: 'State', cell: (f) => <State f={f} /> },
  { key: 'nodes', header: 'Nodes', align: 'right', cell: (f) => <span className="tabular text-sm">{formatNumber(f.nodes)}</span> },
  { key: 'counts', header: 'By state', className: 'w-full min-w-56', cell: (f) => <Counts f={f} /> },
  { key: 'time', header: 'Elapsed', align: 'right', cell: (f) => <Time f={f} /> },
];

function PhoneRow({ f }: { f: FlowSummaryJson }) {
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-2">
        <FlowId f={f} />
        <State f={f} />
        <span className="min-w-0 flex-1 truncate text-xs text-slate-500" title={f.name ?? undefined}>
          {f.name ?? counted(f.nodes, 'node')}
        </span>
        <Time f={f} />
      </div>
      <Counts f={f} />
    </div>
  );
}

const FILTERS = [
  ['', 'all'],
  ['1', 'unfinished'],
  ['0', 'finished'],
] as const;

export function Flows() {
  const sp = useSearchParams();
  const unfinished = sp.get('unfinished') ?? '';
  const cursor = sp.get('cursor') ?? '';
  const navigate = useReplaceQuery();

  const url = withQuery('/api/flows', { unfinished, cursor, limit: PAGE_SIZE });
  const q = useLive<FlowPageJson>(['flows', url], url, { keepPrevious: true });
  const items = q.data?.items ?? [];

  const pages = useKeysetPages(unfinished, cursor, (c) => navigate({ unfinished, cursor: c }));
  const setFilter = (u: string) => navigate({ unfinished: u });

  return (
    <>
      <PageHeader title="Flows" description="Graphs of tasks created at once: a node runs once every node it depends on has succeeded." />
      {q.data && <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />}
      <Card testId="flows-card">
        <CardHeader
          title={cursor ? `Flows older than #${cursor}` : 'Newest flows'}
          actions={
            <div role="group" aria-label="Finished or not" className="flex rounded-md bg-white p-0.5 shadow-xs ring-1 ring-slate-200">
              {FILTERS.map(([v, label]) => (
                <button
                  key={label}
                  type="button"
                  aria-pressed={v === unfinished}
                  data-testid={`flows-filter-${label}`}
                  onClick={() => setFilter(v)}
                  className={cx(
                    'rounded px-2 py-1 text-xs font-medium',
                    v === unfinished ? 'bg-slate-900 text-white' : 'text-slate-600 hover:bg-slate-100',
                  )}
                >
                  {label}
                </button>
              ))}
            </div>
          }
        />
        <QueryStates
          query={q}
          rows={5}
          empty={
            <EmptyState
              title={unfinished ? `No ${FILTERS.find(([v]) => v === unfinished)?.[1]} flows` : cursor ? 'No older flows' : 'No flows yet'}
              icon="flows"
            >
              Create one with <code className="font-mono">rp.flow(&#123; nodes &#125;)</code> or{' '}
              <code className="font-mono">POST /api/flows</code>; a task enqueued with <code className="font-mono">dependsOn</code> a
              flow&apos;s node joins its graph.
            </EmptyState>
          }
        >
          {() => (
            <DataTable
              testId="flow-table"
              rows={items}
              columns={columns}
              rowKey={(f) => f.id}
              rowAttrs={(f) => ({ 'data-testid': 'flow-row', 'data-flow': String(f.id) })}
              phoneRow={(f) => <PhoneRow f={f} />}
            />
          )}
        </QueryStates>
        <Pager
          info={`${cursor ? `Older than #${cursor}` : 'Newest first'} · ${items.length} shown`}
          cursor={cursor}
          nextCursor={q.data?.nextCursor}
          onNewer={pages.newer}
          onOlder={() => pages.older(q.data?.nextCursor)}
          testId="flows"
        />
      </Card>
    </>
  );
}
