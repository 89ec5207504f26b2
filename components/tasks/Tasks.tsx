'use client';
// Tasks: every task in every state. Tabs (with counts from the kept aggregates), filters in the URL, keyset
// pages newest first, a selection (or everything the filter matches) for the bulk bar.
import { useSearchParams } from 'next/navigation';
import { useCallback, useMemo, useState } from 'react';
import type { TaskCountsJson, TaskPageJson } from '../api';
import { ApiError, withQuery } from '../api';
import { formatNumber } from '../format';
import { useLive } from '../live';
import { Button } from '../ui/Button';
import { Card, PageHeader } from '../ui/Card';
import { cx } from '../ui/cx';
import { EmptyState, ErrorState, LoadingState, Notice, StaleBanner } from '../ui/States';
import { useReplaceQuery } from '../useReplaceQuery';
import { clearRetried, markRetried } from '../task/retried';
import { BulkBar } from './BulkBar';
import { FlowChip } from './FlowChip';
import { TaskFilters } from './TaskFilters';
import { TaskTable } from './TaskTable';
import { countIsExact, FILTER_KEYS, TAB_HINT, TAB_LABEL, TABS, tabCount, tabOf, tabParams, type Filters } from './tabs';

const PAGE_SIZE = 50;
const SCAN_POLL_MS = 5000;

export function Tasks() {
  const sp = useSearchParams();
  const status = sp.get('status') ?? '';
  const sub = sp.get('sub') ?? '';
  const tab = tabOf(status, sub);
  const filters = Object.fromEntries(FILTER_KEYS.map((k) => [k, sp.get(k) ?? ''])) as Filters;
  const cursor = sp.get('cursor') ?? '';
  // the filter as a query string without the cursor: the bulk bar's `query`, and the key of the selection
  const query = useMemo(() => {
    const p = new URLSearchParams();
    if (status) p.set('status', status);
    if (sub) p.set('sub', sub);
    for (const k of FILTER_KEYS) if (filters[k]) p.set(k, filters[k]);
    return p.toString();
    // biome-ignore lint/correctness/useExhaustiveDependencies: derived from the search params
  }, [sp]);

  // cursors of the newer pages already visited, to step back with "Newer"
  const [trail, setTrail] = useState<{ key: string; cursors: string[] }>({ key: query, cursors: [] });
  const cursors = trail.key === query ? trail.cursors : [];
  const [selection, setSelection] = useState<{ key: string; tokens: Set<string>; all: boolean }>({
    key: query,
    tokens: new Set(),
    all: false,
  });
  const selected = selection.key === query ? selection.tokens : new Set<string>();
  const allMatching = selection.key === query && selection.all;

  const navigate = useReplaceQuery();
  const go = useCallback(
    (change: Record<string, string>, keepCursor = false) => {
      const next: Record<string, string> = { status, sub, ...filters, cursor: keepCursor ? cursor : '', ...change };
      navigate(next);
    },
    // biome-ignore lint/correctness/useExhaustiveDependencies: derived from the search params
    [navigate, sp],
  );
  const onFilter = useCallback(
    (change: Partial<Filters>) => {
      setTrail({ key: '', cursors: [] });
      go(change as Record<string, string>);
    },
    [go],
  );

  const url = withQuery('/api/tasks', { status, sub, ...filters, cursor, limit: PAGE_SIZE });
  // a filter no index answers examines up to 50,000 rows per read: poll it every 5 s, not every second
  const scanning = !countIsExact(filters);
  const page = useLive<TaskPageJson>(['tasks', url], url, { keepPrevious: true, intervalMs: scanning ? SCAN_POLL_MS : undefined });
  const countsUrl = withQuery('/api/tasks/counts', { queue: filters.queue });
  const counts = useLive<TaskCountsJson>(['task-counts', countsUrl], countsUrl, { keepPrevious: true });

  // a filter the API refuses (400 naming it) replaces the list; the previous page's rows would mislead
  const badFilter = page.error instanceof ApiError && page.error.status === 400 ? page.error : null;
  const items = badFilter ? [] : (page.data?.items ?? []);
  const exact = countIsExact(filters);
  // status=pending without a sub-state (a link from elsewhere) is every pending task: no tab, but a count
  const matching = !exact ? null : tab ? tabCount(tab, counts.data) : status === 'pending' ? (counts.data?.pending ?? null) : null;
  const filtered = FILTER_KEYS.some((k) => filters[k]);
  const finishedTab = tab === 'succeeded' || tab === 'dead' || tab === 'cancelled';

  const older = () => {
    const next = page.data?.nextCursor;
    if (next == null) return;
    setTrail({ key: query, cursors: [...cursors, cursor] });
    go({ cursor: String(next) });
    window.scrollTo({ top: 0 });
  };
  const newer = () => {
    const prev = cursors.length ? cursors[cursors.length - 1]! : '';
    setTrail({ key: query, cursors: cursors.slice(0, -1) });
    go({ cursor: prev });
  };
  const toggle = (token: string) => {
    const tokens = new Set(selected);
    if (tokens.has(token)) tokens.delete(token);
    else tokens.add(token);
    setSelection({ key: query, tokens, all: false });
  };
  const toggleAll = (on: boolean) => {
    const tokens = new Set(selected);
    for (const t of items) on ? tokens.add(t.token) : tokens.delete(t.token);
    setSelection({ key: query, tokens, all: false });
  };
  const clearSelection = () => setSelection({ key: query, tokens: new Set(), all: false });
  const pageAllSelected = items.length > 0 && items.every((t) => selected.has(t.token));
  const moreThanPage = page.data?.nextCursor != null || cursor !== '';

  return (
    <>
      <PageHeader
        title="Tasks"
        description="Every task in every state. Filter by queue, command, key, batch, flow, priority, time, text or a value in the payload."
      />
      {page.data && !badFilter && <StaleBanner error={page.error} updatedAt={page.dataUpdatedAt} />}
      <Card testId="tasks-card">
        {/* the tabs wrap onto a second line on a phone: every state stays in view */}
        <nav aria-label="Task states" className="flex flex-wrap gap-x-1 border-b border-slate-100 px-3 pt-2" data-testid="task-tabs">
          {TABS.map((t) => {
            const n = tabCount(t, counts.data);
            const on = tab === t;
            return (
              <button
                key={t}
                type="button"
                title={TAB_HINT[t]}
                aria-current={on ? 'page' : undefined}
                data-testid={`tab-${t}`}
                onClick={() => {
                  setTrail({ key: '', cursors: [] });
                  go(tabParams(t));
                }}
                className={cx(
                  '-mb-px flex items-center gap-1.5 whitespace-nowrap border-b-2 px-2.5 py-2 text-sm font-medium',
                  on ? 'border-brand-600 text-brand-700' : 'border-transparent text-slate-500 hover:border-slate-300 hover:text-slate-800',
                )}
              >
                {TAB_LABEL[t]}
                <span
                  data-testid={`tab-count-${t}`}
                  className={cx(
                    'tabular rounded-full px-1.5 text-xs',
                    on ? 'bg-brand-50 text-brand-700' : 'bg-slate-100 text-slate-600',
                    t === 'dead' && n ? 'bg-rose-50 text-rose-700' : '',
                  )}
                >
                  {n === null ? '…' : formatNumber(n)}
                </span>
              </button>
            );
          })}
        </nav>
        {status === 'pending' && !sub && (
          <p className="border-b border-slate-100 px-4 py-2 text-xs text-slate-500">All pending tasks (ready, scheduled and retrying).</p>
        )}
        {filters.flow && <FlowChip flow={filters.flow} onRemove={() => onFilter({ flow: '' })} />}
        <TaskFilters
          value={filters}
          queues={counts.data?.queues ?? []}
          timeColumn={finishedTab ? 'finished' : 'created'}
          onChange={onFilter}
        />
        {(selected.size > 0 || allMatching) && (
          <div
            className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-slate-100 bg-brand-50/50 px-4 py-2 text-sm"
            data-testid="tasks-selection"
          >
            {allMatching ? (
              <span data-testid="tasks-selection-info">
                All {matching !== null ? formatNumber(matching) : ''} tasks matching this filter are selected.
              </span>
            ) : (
              <span data-testid="tasks-selection-info">
                {formatNumber(selected.size)} task{selected.size === 1 ? '' : 's'} selected.
              </span>
            )}
            {!allMatching && pageAllSelected && moreThanPage && (
              <Button
                size="sm"
                variant="ghost"
                data-testid="tasks-select-matching"
                onClick={() => setSelection({ key: query, tokens: new Set(), all: true })}
              >
                Select all {matching !== null ? formatNumber(matching) : ''} matching the filter
              </Button>
            )}
            <Button size="sm" variant="ghost" data-testid="tasks-select-clear" onClick={clearSelection}>
              Clear selection
            </Button>
          </div>
        )}
        {(selected.size > 0 || allMatching) && (
          <BulkBar
            selected={allMatching ? [] : [...selected]}
            query={query}
            matching={matching}
            onDone={(done) => {
              // the tasks shown that the action covered: a retry marks them (RetriedNote), another action ends the mark
              const hit = allMatching ? items : items.filter((t) => selected.has(t.token));
              if (done.action === 'retry') markRetried(hit, done.at);
              else for (const t of hit) clearRetried(t.token);
              clearSelection();
              void page.refetch();
              void counts.refetch();
            }}
          />
        )}
        {page.data?.partial && !badFilter && (
          <div className="border-b border-slate-100 px-4 py-2">
            <Notice tone="info" testId="tasks-partial">
              Scanned {formatNumber(page.data.scanned ?? null)} tasks{items.length ? '' : ' without a match'} — this filter is not answered
              by an index. Refine it (a state tab, a batch), or go on with Older → to look further back.
            </Notice>
          </div>
        )}
        {badFilter ? (
          <div className="p-4">
            <Notice tone="error" testId="tasks-bad-filter">
              {badFilter.message}
            </Notice>
          </div>
        ) : page.isPending ? (
          <LoadingState rows={8} />
        ) : page.isError && !page.data ? (
          <ErrorState error={page.error} onRetry={() => void page.refetch()} />
        ) : items.length === 0 ? (
          <EmptyState title={filtered ? 'No tasks match these filters' : cursor ? 'No older tasks' : 'No tasks here'}>
            {filtered ? 'Clear a filter or pick another state.' : tab ? TAB_HINT[tab] : 'Enqueue a task to see it here.'}
          </EmptyState>
        ) : (
          <TaskTable items={items} selected={selected} onToggle={toggle} onToggleAll={toggleAll} />
        )}
        <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-100 px-4 py-3">
          <p className="text-xs text-slate-500" data-testid="tasks-page-info">
            {cursor ? `Tasks older than #${cursor}` : 'Newest tasks'} · {items.length} shown
            {matching !== null && ` · ${formatNumber(matching)} in this tab`}
          </p>
          <div className="flex gap-2">
            <Button size="sm" onClick={newer} disabled={!cursor} data-testid="tasks-newer">
              ← Newer
            </Button>
            <Button size="sm" onClick={older} disabled={badFilter !== null || page.data?.nextCursor == null} data-testid="tasks-older">
              Older →
            </Button>
          </div>
        </div>
      </Card>
    </>
  );
}
