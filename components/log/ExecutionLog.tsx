'use client';
// ExecutionLog: every attempt, newest first; filters live in the URL, pages are keyset cursors.
import { useSearchParams } from 'next/navigation';
import { useCallback, useMemo, useState } from 'react';
import { useReplaceQuery } from '../useReplaceQuery';
import type { AttemptJson, PageJson, StatsJson } from '../api';
import { withQuery } from '../api';
import { useLive } from '../live';
import { Button } from '../ui/Button';
import { Card, PageHeader } from '../ui/Card';
import { QueryStates } from '../ui/QueryStates';
import { EmptyState, StaleBanner } from '../ui/States';
import { LogFilters, type LogFilter } from './LogFilters';
import { LogTable } from './LogTable';
import { TimeModeToggle } from './TimeModeToggle';
import { useTimeMode } from './time';

const PAGE_SIZE = 50;
const KEYS = ['outcome', 'queue', 'batch', 'q', 'from', 'to'] as const;

export function ExecutionLog() {
  const sp = useSearchParams();
  const [timeMode, setTimeMode] = useTimeMode();
  const filter: LogFilter = {
    outcome: sp.get('outcome') ?? '',
    queue: sp.get('queue') ?? '',
    batch: sp.get('batch') ?? '',
    q: sp.get('q') ?? '',
    from: sp.get('from') ?? '',
    to: sp.get('to') ?? '',
  };
  const cursor = sp.get('cursor') ?? '';
  const filterKey = KEYS.map((k) => filter[k]).join('\u0000');
  // cursors of the newer pages already visited, to step back with "Newer"
  const [trail, setTrail] = useState<{ key: string; cursors: string[] }>({ key: filterKey, cursors: [] });
  const cursors = trail.key === filterKey ? trail.cursors : [];

  const navigate = useReplaceQuery();

  const current = useMemo(() => Object.fromEntries(KEYS.map((k) => [k, sp.get(k) ?? ''])), [sp]);
  const onFilter = useCallback(
    (change: Partial<LogFilter>) => {
      setTrail({ key: '', cursors: [] });
      navigate({ ...current, ...change } as Record<string, string>);
    },
    [navigate, current],
  );

  const url = withQuery('/api/log', { ...filter, cursor, limit: PAGE_SIZE });
  const log = useLive<PageJson<AttemptJson>>(['log', url], url, { keepPrevious: true });
  const stats = useLive<StatsJson>(['stats'], '/api/stats');
  const queues = stats.data?.queues.map((q) => q.queue) ?? [];

  const older = () => {
    const next = log.data?.nextCursor;
    if (next == null) return;
    setTrail({ key: filterKey, cursors: [...cursors, cursor] });
    navigate({ ...current, cursor: String(next) } as Record<string, string>);
    window.scrollTo({ top: 0 });
  };
  const newer = () => {
    const prev = cursors.length ? cursors[cursors.length - 1]! : '';
    setTrail({ key: filterKey, cursors: cursors.slice(0, -1) });
    navigate({ ...current, cursor: prev } as Record<string, string>);
  };

  const items = log.data?.items ?? [];
  const filtered = KEYS.some((k) => filter[k]);

  return (
    <>
      <PageHeader
        title="Execution log"
        description="Every attempt with its worker, session, times, outcome and error — newest first."
        actions={<TimeModeToggle mode={timeMode} onMode={setTimeMode} />}
      />
      {log.data && <StaleBanner error={log.error} updatedAt={log.dataUpdatedAt} />}
      <Card testId="log-card">
        <LogFilters value={filter} queues={queues} onChange={onFilter} timeMode={timeMode} />
        <QueryStates
          query={log}
          rows={8}
          empty={
            <EmptyState title={filtered ? 'No attempts match these filters' : cursor ? 'No older attempts' : 'No attempts logged yet'}>
              {filtered ? 'Widen the time range or clear a filter.' : 'Attempts appear here as soon as a worker starts a task.'}
            </EmptyState>
          }
        >
          {() => <LogTable items={items} timeMode={timeMode} />}
        </QueryStates>
        <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-100 px-4 py-3">
          <p className="text-xs text-slate-500" data-testid="log-page-info">
            {cursor ? `Attempts older than #${cursor}` : 'Newest attempts'} · {items.length} shown
          </p>
          <div className="flex gap-2">
            <Button size="sm" onClick={newer} disabled={!cursor} data-testid="log-newer">
              ← Newer
            </Button>
            <Button size="sm" onClick={older} disabled={log.data?.nextCursor == null} data-testid="log-older">
              Older →
            </Button>
          </div>
        </div>
      </Card>
    </>
  );
}
