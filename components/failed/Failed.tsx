'use client';
// Failed & poison: dead tasks grouped by error message, with retry (one, selected, all matching) and delete.
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useReplaceQuery } from '../useReplaceQuery';
import { deleteFailures, deleteTask, retryFailures, retryTask, retryTasks } from '@/app/actions';
import type { FailuresJson, FailureGroupJson, StatsJson } from '../api';
import { withQuery } from '../api';
import { formatNumber } from '../format';
import { useLive } from '../live';
import { useAction } from '../useAction';
import { inputCls, labelCls } from '../log/LogFilters';
import { Button } from '../ui/Button';
import { Card, CardHeader, PageHeader } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { EmptyState, ErrorState, LoadingState, StaleBanner } from '../ui/States';
import { useToast } from '../ui/Toast';
import { DeadTasks } from './DeadTasks';
import { FailureGroups, groupKey } from './FailureGroups';

interface Pending {
  title: string;
  body: ReactNode;
  label: string;
  run: () => Promise<unknown>;
}

const plural = (n: number, word: string) => `${formatNumber(n)} ${word}${n === 1 ? '' : 's'}`;

export function Failed() {
  const sp = useSearchParams();
  const queue = sp.get('queue') ?? '';
  const q = sp.get('q') ?? '';
  const message = sp.get('message') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);

  const replaceQuery = useReplaceQuery();
  const setParams = useCallback(
    (change: Record<string, string>) => replaceQuery({ queue, q, message, ...change }),
    [replaceQuery, queue, q, message],
  );
  useEffect(() => {
    if (text === q) return;
    const t = setTimeout(() => setParams({ q: text }), 300);
    return () => clearTimeout(t);
  }, [text, q, setParams]);

  const url = withQuery('/api/failures', { queue, q });
  const data = useLive<FailuresJson>(['failures', url], url, { keepPrevious: true });
  const stats = useLive<StatsJson>(['stats'], '/api/stats');
  const queues = stats.data?.queues.map((x) => x.queue) ?? [];

  const groups = data.data?.groups ?? [];
  const selectedGroup = message ? (groups.find((g) => g.message === message && (!queue || g.queue === queue)) ?? null) : null;
  const dead = useMemo(() => {
    const all = data.data?.dead ?? [];
    return message ? all.filter((t) => t.lastError?.message === message) : all;
  }, [data.data, message]);

  const [picked, setPicked] = useState<Set<string>>(new Set());
  const selected = useMemo(() => new Set(dead.filter((t) => picked.has(t.token)).map((t) => t.token)), [dead, picked]);
  const [confirm, setConfirm] = useState<Pending | null>(null);
  const [confirmBusy, setConfirmBusy] = useState(false);
  const toast = useToast();

  const retryOne = useAction(retryTask, { success: () => 'Task queued for another attempt' });
  const retryMany = useAction(retryTasks, { success: (r) => `${plural(r.count, 'task')} queued for retry` });
  const retryAll = useAction(retryFailures, { success: (r) => `${plural(r.count, 'task')} queued for retry` });
  const deleteAll = useAction(deleteFailures, { success: (r) => `${plural(r.count, 'task')} deleted` });
  const deleteOne = useAction(deleteTask, { toastErrors: false });
  const busy = retryOne.busy || retryMany.busy || retryAll.busy || deleteAll.busy || deleteOne.busy;

  const filter = { queue: queue || undefined, q: q || undefined, message: message || undefined };
  const filtered = Boolean(queue || q || message);

  const deleteSelected = async () => {
    let n = 0;
    let firstError: string | null = null;
    for (const token of selected) {
      const r = await deleteOne.run(token);
      if (r.ok) n++;
      else firstError ??= r.error;
    }
    setPicked(new Set());
    if (firstError) toast('error', `${plural(n, 'task')} deleted; ${firstError}`);
    else toast('success', `${plural(n, 'task')} deleted`);
  };

  const askGroupDelete = (g: FailureGroupJson) =>
    setConfirm({
      title: 'Delete this failure group?',
      label: `Delete ${plural(g.count, 'task')}`,
      body: (
        <>
          Every dead task of queue <b className="font-mono">{g.queue}</b> whose last error is “{g.message}” is deleted with its log.
        </>
      ),
      run: () => deleteAll.run({ queue: g.queue, message: g.message }),
    });

  return (
    <>
      <PageHeader
        title="Failed & poison"
        description={
          'Dead tasks — attempts used up or a non-retryable error — grouped by error message. A poison task ' + 'never blocks its queue.'
        }
      />
      {data.data && <StaleBanner error={data.error} updatedAt={data.dataUpdatedAt} />}

      <Card className="mb-5">
        <form
          role="search"
          className="flex flex-wrap items-end gap-3 p-4"
          onSubmit={(e) => {
            e.preventDefault();
            setParams({ q: text });
          }}
        >
          <div className="w-full sm:w-48">
            <label htmlFor="ff-queue" className={labelCls}>
              Queue
            </label>
            <select
              id="ff-queue"
              data-testid="failed-queue"
              className={inputCls}
              value={queue}
              onChange={(e) => setParams({ queue: e.target.value })}
            >
              <option value="">all</option>
              {(queue && !queues.includes(queue) ? [queue, ...queues] : queues).map((x) => (
                <option key={x} value={x}>
                  {x}
                </option>
              ))}
            </select>
          </div>
          <div className="min-w-48 flex-1">
            <label htmlFor="ff-q" className={labelCls}>
              Command or error contains
            </label>
            <input
              id="ff-q"
              data-testid="failed-text"
              type="search"
              className={inputCls}
              value={text}
              placeholder="timeout, demo.fail…"
              onChange={(e) => setText(e.target.value)}
            />
          </div>
          <div className="flex w-full items-end gap-2 sm:w-auto">
            <Button
              className="flex-1"
              disabled={busy || dead.length === 0}
              busy={retryAll.busy}
              data-testid="retry-all-matching"
              onClick={() => void retryAll.run(filter)}
              title="Retry every dead task matching the filter, including those beyond this page"
            >
              Retry all {filtered ? 'matching' : ''}
            </Button>
            <Button
              variant="ghost"
              disabled={busy || dead.length === 0}
              data-testid="delete-all-matching"
              onClick={() =>
                setConfirm({
                  title: filtered ? 'Delete every dead task matching this filter?' : 'Delete every dead task?',
                  label: 'Delete all',
                  body: 'The tasks and their execution log rows are removed for good. This cannot be undone.',
                  run: () => deleteAll.run(filter),
                })
              }
            >
              Delete all
            </Button>
          </div>
        </form>
      </Card>

      {data.isPending ? (
        <Card>
          <LoadingState rows={6} />
        </Card>
      ) : data.isError && !data.data ? (
        <Card>
          <ErrorState error={data.error} onRetry={() => void data.refetch()} />
        </Card>
      ) : (
        <div className="space-y-5">
          <Card testId="groups-card">
            <CardHeader
              title="Failures by error message"
              subtitle={`${plural(groups.length, 'group')}${filtered ? ' matching the filter' : ''} · click a message to list its tasks`}
            />
            {groups.length === 0 ? (
              <EmptyState title={filtered ? 'No failures match this filter' : 'No failures'} icon="✓">
                {filtered ? 'Clear the filter to see every failure.' : 'Tasks that exhaust their attempts show up here, grouped by error.'}
              </EmptyState>
            ) : (
              <FailureGroups
                groups={groups}
                selected={selectedGroup ? groupKey(selectedGroup) : null}
                busy={busy}
                onSelect={(g) => setParams({ message: g?.message ?? '', queue: g ? g.queue : queue })}
                onRetry={(g) => void retryAll.run({ queue: g.queue, message: g.message })}
                onDelete={askGroupDelete}
              />
            )}
          </Card>

          <Card testId="dead-card">
            <CardHeader
              title={`Dead tasks (${formatNumber(dead.length)}${data.data && data.data.dead.length >= 200 ? '+' : ''})`}
              subtitle={
                message ? (
                  <>
                    Only “{message}” ·{' '}
                    <button type="button" className="text-brand-600 hover:underline" onClick={() => setParams({ message: '' })}>
                      show all
                    </button>
                  </>
                ) : (
                  'Newest first'
                )
              }
              actions={
                <>
                  {dead.length > 0 && (
                    <label className="mr-1 flex items-center gap-2 text-xs text-slate-600 md:hidden">
                      <input
                        type="checkbox"
                        data-testid="dead-select-all-phone"
                        className="size-4 accent-brand-600"
                        checked={dead.every((t) => selected.has(t.token))}
                        onChange={(e) => setPicked(e.target.checked ? new Set(dead.map((t) => t.token)) : new Set())}
                      />
                      all
                    </label>
                  )}
                  <Button
                    size="sm"
                    variant="primary"
                    disabled={busy || selected.size === 0}
                    busy={retryMany.busy}
                    data-testid="retry-selected"
                    onClick={async () => {
                      const r = await retryMany.run([...selected]);
                      if (r.ok) setPicked(new Set());
                    }}
                  >
                    Retry selected{selected.size ? ` (${selected.size})` : ''}
                  </Button>
                  <Button
                    size="sm"
                    variant="secondary"
                    disabled={busy || selected.size === 0}
                    data-testid="delete-selected"
                    onClick={() =>
                      setConfirm({
                        title: `Delete ${plural(selected.size, 'task')}?`,
                        label: 'Delete',
                        body: 'The selected tasks and their execution log rows are removed for good.',
                        run: deleteSelected,
                      })
                    }
                  >
                    Delete selected
                  </Button>
                </>
              }
            />
            {dead.length === 0 ? (
              <EmptyState title="No dead tasks" icon="✓">
                Nothing is poisoned{filtered ? ' under this filter' : ''}.
              </EmptyState>
            ) : (
              <DeadTasks
                tasks={dead}
                selected={selected}
                busy={busy}
                onToggle={(t) =>
                  setPicked((s) => {
                    const n = new Set(s);
                    if (n.has(t)) n.delete(t);
                    else n.add(t);
                    return n;
                  })
                }
                onToggleAll={(all) => setPicked(all ? new Set(dead.map((t) => t.token)) : new Set())}
                onRetry={(t) => void retryOne.run(t)}
              />
            )}
          </Card>
        </div>
      )}

      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.title ?? ''}
        confirmLabel={confirm?.label}
        busy={confirmBusy}
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          if (!confirm) return;
          setConfirmBusy(true);
          try {
            await confirm.run();
          } finally {
            setConfirmBusy(false);
            setConfirm(null);
          }
        }}
      >
        {confirm?.body}
      </ConfirmDialog>
    </>
  );
}
