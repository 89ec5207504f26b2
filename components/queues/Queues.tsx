'use client';
// Queues: live concurrency limits, pause and throttle per queue (the selected queue's throttle editor),
// the token grants, and the change history.
import { useSearchParams } from 'next/navigation';
import { useCallback, useMemo, useState } from 'react';
import { useReplaceQuery } from '../useReplaceQuery';
import { useLive } from '../live';
import { inputCls } from '../log/LogFilters';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState, StaleBanner } from '../ui/States';
import { ChangeHistory } from './ChangeHistory';
import { ThrottlePanel } from './ThrottlePanel';
import { QueueList } from './QueueList';
import { TokenGrants, type TokenMode } from './TokenGrants';
import type { QueuesJson } from './types';
import type { QueueHealthJson } from '../why/WhyReason';

const FILTER_FROM = 8;

export function Queues() {
  const sp = useSearchParams();
  const selected = sp.get('queue') ?? '';
  const mode: TokenMode = sp.get('tokens') === 'all' ? 'all' : 'granted';
  const [filter, setFilter] = useState('');

  const replaceQuery = useReplaceQuery();
  const setParams = useCallback(
    (change: Record<string, string>) => replaceQuery({ queue: selected, tokens: mode === 'all' ? 'all' : '', ...change }),
    [replaceQuery, selected, mode],
  );

  const q = useLive<QueuesJson>(['queues'], '/api/queues');
  const health = useLive<{ queues: QueueHealthJson[] }>(['queue-health'], '/api/why');
  const queues = useMemo(() => q.data?.queues ?? [], [q.data]);
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return f ? queues.filter((x) => x.name.toLowerCase().includes(f) || x.name === selected) : queues;
  }, [queues, filter, selected]);
  const limited = queues.filter((x) => x.concurrencyLimit !== null).length;
  const rated = queues.filter((x) => x.rateLimit !== null).length;
  const current = queues.find((x) => x.name === selected);
  const editThrottle = (name: string) => {
    setParams({ queue: name });
    // the editor opens below the list: bring it into view once it is drawn
    setTimeout(
      () => document.querySelector('[data-testid="throttle-card"]')?.scrollIntoView({ behavior: 'smooth', block: 'nearest' }),
      100,
    );
  };
  const paused = queues.filter((x) => x.paused).length;

  return (
    <>
      <PageHeader
        title="Queues"
        description={
          'Concurrency limits, per-key limits and rate limits that hold across every worker and machine, changed live; ' +
          'pause a queue to stop new claims.'
        }
      />
      {q.data && <StaleBanner error={q.error} updatedAt={q.dataUpdatedAt} />}

      <Card className="mb-5" testId="queues-card">
        <CardHeader
          title={q.data ? `${queues.length} queue${queues.length === 1 ? '' : 's'}` : 'Queues'}
          subtitle={
            q.data
              ? `${limited} limited · ${rated} rate limited · ${paused} paused. Raising a limit takes effect on the next claim; ` +
                `lowering it never stops running tasks.`
              : 'Limits, running tasks and pause state'
          }
          actions={
            queues.length >= FILTER_FROM ? (
              <input
                type="search"
                aria-label="Filter queues"
                placeholder="Filter queues"
                data-testid="queue-filter"
                value={filter}
                onChange={(e) => setFilter(e.target.value)}
                className={`${inputCls} w-48`}
              />
            ) : undefined
          }
        />
        <QueryStates
          query={q}
          rows={4}
          isEmpty={() => queues.length === 0}
          empty={
            <EmptyState title="No queues yet" icon="queues">
              A queue appears with its first task, or when a limit is set on it (
              <code className="font-mono">readpast queue set NAME --limit N</code>).
            </EmptyState>
          }
        >
          {() =>
            shown.length === 0 ? (
              <EmptyState title="No queue matches this filter" />
            ) : (
              <QueueList
                queues={shown}
                selected={selected}
                onSelect={(name) => setParams({ queue: name })}
                onEditThrottle={editThrottle}
                health={health.data?.queues}
              />
            )
          }
        </QueryStates>
      </Card>

      {selected && (
        <div className="mb-3 flex items-center gap-2 text-sm text-slate-600" data-testid="queue-selected">
          Showing grants and history of <span className="font-mono font-medium text-slate-900">{selected}</span>
          <button type="button" className="text-brand-600 hover:underline" onClick={() => setParams({ queue: '' })}>
            show all queues
          </button>
        </div>
      )}
      {current && <ThrottlePanel q={current} />}
      <div className="space-y-5">
        <TokenGrants queue={selected} mode={mode} onMode={(m) => setParams({ tokens: m === 'all' ? 'all' : '' })} />
        <ChangeHistory queue={selected} all={q.data?.changes} />
      </div>
    </>
  );
}
