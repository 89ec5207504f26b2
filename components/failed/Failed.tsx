'use client';
// Failed & poison: dead tasks grouped by failure fingerprint (error number + normalised message), command and
// queue, paged; retry and delete one task, a selection, a whole group or all matching — each counted first.
import { useCanOperate } from '../role';
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useReplaceQuery } from '../useReplaceQuery';
import { deleteTask, retryTask, retryTasks } from '@/app/actions';
import { actOnFailures } from '@/app/tasks/actions';
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
import { markRetried } from '../task/retried';
import { DeadTasks } from './DeadTasks';
import { FailureGroups, groupKey } from './FailureGroups';

interface Pending {
  title: string;
  body: ReactNode;
  label: string;
  tone?: 'danger' | 'primary';
  run: () => Promise<unknown>;
}

const retryFailures = (f: object) => actOnFailures('retry', f);
const deleteFailures = (f: object) => actOnFailures('delete', f);

const plural = (n: number, word: string) => `${formatNumber(n)} ${word}${n === 1 ? '' : 's'}`;
/** a retry of many keeps the newest task per dedup key, and none whose key an unfinished task holds */
const heldText = (r: { skipped?: { dedupKeyHeld: number } }) =>
  r.skipped?.dedupKeyHeld ? ` · ${plural(r.skipped.dedupKeyHeld, 'task')} skipped: dedup key held by a newer or unfinished task` : '';

export function Failed() {
  const operator = useCanOperate();
  const sp = useSearchParams();
  const queue = sp.get('queue') ?? '';
  const q = sp.get('q') ?? '';
  const fp = sp.get('fp') ?? '';
  const command = sp.get('command') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  // offsets of the group pages (server-side paging): the current one is the last
  const [pages, setPages] = useState<number[]>([0]);
  const cursor = pages[pages.length - 1] ?? 0;
  useEffect(() => setPages([0]), [queue, q]);

  const replaceQuery = useReplaceQuery();
  const setParams = useCallback(
    (change: Record<string, string>) => replaceQuery({ queue, q, fp, command, ...change }),
    [replaceQuery, queue, q, fp, command],
  );
  useEffect(() => {
    if (text === q) return;
    const t = setTimeout(() => setParams({ q: text }), 300);
    return () => clearTimeout(t);
  }, [text, q, setParams]);

  const url = withQuery('/api/failures', { queue, q, cursor: cursor ? String(cursor) : '' });
  const data = useLive<FailuresJson>(['failures', url], url, { keepPrevious: true });
  // the tasks of the group picked (by fingerprint and command), newest first
  const groupUrl = withQuery('/api/failures', { queue, q, fingerprint: fp, command, limit: '1' });
  const groupData = useLive<FailuresJson>(['failures', groupUrl], groupUrl, { enabled: Boolean(fp), keepPrevious: true });
  const stats = useLive<StatsJson>(['stats'], '/api/stats');
  const queues = stats.data?.queues.map((x) => x.queue) ?? [];

  const groups = data.data?.groups ?? [];
  const more = data.data?.nextCursor ?? null;
  const selectedKey = fp ? groupKey({ fingerprint: fp, command, queue }) : null;
  const selectedGroup = fp
    ? (groups.find((g) => g.fingerprint === fp && g.command === command && (!queue || g.queue === queue)) ?? null)
    : null;
  const dead = useMemo(() => (fp ? (groupData.data?.dead ?? []) : (data.data?.dead ?? [])), [data.data, groupData.data, fp]);
  const known = pages.length === 1 && more === null;
  const totalDead = groups.reduce((n, g) => n + g.count, 0);

  const [picked, setPicked] = useState<Set<string>>(new Set());
  const selected = useMemo(() => new Set(dead.filter((t) => picked.has(t.token)).map((t) => t.token)), [dead, picked]);
  const [confirm, setConfirm] = useState<Pending | null>(null);
  const [confirmBusy, setConfirmBusy] = useState(false);
  const toast = useToast();

  const retryOne = useAction(retryTask, { success: () => 'Task queued for another attempt' });
  const retryMany = useAction(retryTasks, { success: (r) => `${plural(r.count, 'task')} queued for retry` });
  const retryAll = useAction(retryFailures, { success: (r) => `${plural(r.count, 'task')} queued for retry${heldText(r)}` });
  const groupRetry = useAction(retryFailures, { success: (r) => `${plural(r.count, 'task')} queued for retry${heldText(r)}` });
  const groupDelete = useAction(deleteFailures, { success: (r) => `${plural(r.count, 'task')} deleted` });
  const deleteAll = useAction(deleteFailures, { success: (r) => `${plural(r.count, 'task')} deleted` });
  const deleteOne = useAction(deleteTask, { toastErrors: false });
  const busy = retryOne.busy || retryMany.busy || retryAll.busy || deleteAll.busy || deleteOne.busy || groupRetry.busy || groupDelete.busy;

  const filter = { queue: queue || undefined, q: q || undefined };
  const filtered = Boolean(queue || q);
  const matchingCount = known ? plural(totalDead, 'dead task') : `more than ${plural(totalDead, 'dead task')}`;

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

  const groupFilter = (g: FailureGroupJson) => ({ queue: g.queue, fingerprint: g.fingerprint, command: g.command });
  const groupText = (g: FailureGroupJson) => (
    <>
      the dead tasks of queue <b className="font-mono">{g.queue}</b> and command <b className="font-mono">{g.command}</b> failing like “
      {g.message}” (fingerprint <span className="font-mono">{g.fingerprint}</span>)
    </>
  );
  const askGroupDelete = (g: FailureGroupJson) =>
    setConfirm({
      title: `Delete ${plural(g.count, 'task')}?`,
      label: `Delete ${plural(g.count, 'task')}`,
      body: (
        <>
          All {formatNumber(g.count)} of {groupText(g)} are deleted with their log. This cannot be undone.
        </>
      ),
      run: () => groupDelete.run(groupFilter(g)),
    });
  const askGroupRetry = (g: FailureGroupJson) =>
    setConfirm({
      title: `Retry ${plural(g.count, 'task')}?`,
      label: `Retry ${plural(g.count, 'task')}`,
      tone: 'primary',
      body: (
        <>
          All {formatNumber(g.count)} of {groupText(g)} go back to pending with one more attempt, and leave this list.
        </>
      ),
      run: async () => {
        const r = await groupRetry.run(groupFilter(g));
        // the rows shown of that group (the note needs their attempts; rows of other groups are not retried)
        if (r.ok)
          markRetried(
            dead.filter((t) => t.queue === g.queue && t.command === g.command),
            r.at,
          );
      },
    });

  return (
    <>
      <PageHeader
        title="Failed & poison"
        description={
          'Dead tasks — attempts used up or a non-retryable error — grouped by failure fingerprint: the same error with other ' +
          'ids, numbers or quoted values is one group. A poison task never blocks its queue.'
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
              hidden={!operator}
              onClick={() =>
                setConfirm({
                  title: `Retry ${matchingCount}?`,
                  label: 'Retry all',
                  tone: 'primary',
                  body:
                    `Every dead task${filtered ? ' matching this filter' : ''} — ${matchingCount} — goes back to pending with one ` +
                    'more attempt.',
                  run: async () => {
                    const r = await retryAll.run(filter);
                    if (r.ok) markRetried(dead, r.at);
                  },
                })
              }
              title="Retry every dead task matching the filter, including those beyond this page"
            >
              Retry all {filtered ? 'matching' : ''}
            </Button>
            <Button
              variant="ghost"
              disabled={busy || dead.length === 0}
              data-testid="delete-all-matching"
              hidden={!operator}
              onClick={() =>
                setConfirm({
                  title: `Delete ${matchingCount}?`,
                  label: 'Delete all',
                  body:
                    `Every dead task${filtered ? ' matching this filter' : ''} — ${matchingCount} — and its execution log rows are ` +
                    'removed for good. This cannot be undone.',
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
              title="Failures by fingerprint"
              subtitle={`${plural(groups.length, 'group')}${more !== null || pages.length > 1 ? ' on this page' : ''}${
                filtered ? ' matching the filter' : ''
              } · the same error with other ids, numbers or quoted values is one group · click a message to list its tasks`}
              actions={
                more !== null || pages.length > 1 ? (
                  <div className="flex gap-1.5">
                    <Button
                      size="sm"
                      variant="ghost"
                      disabled={pages.length === 1}
                      data-testid="groups-prev"
                      onClick={() => setPages((p) => p.slice(0, -1))}
                    >
                      Previous
                    </Button>
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={more === null}
                      data-testid="groups-next"
                      onClick={() => more !== null && setPages((p) => [...p, more])}
                    >
                      Next
                    </Button>
                  </div>
                ) : undefined
              }
            />
            {groups.length === 0 ? (
              <EmptyState title={filtered ? 'No failures match this filter' : 'No failures'} icon="check">
                {filtered ? 'Clear the filter to see every failure.' : 'Tasks that exhaust their attempts show up here, grouped by error.'}
              </EmptyState>
            ) : (
              <FailureGroups
                groups={groups}
                selected={selectedKey}
                busy={busy}
                onSelect={(g) => setParams({ fp: g?.fingerprint ?? '', command: g?.command ?? '', queue: g ? g.queue : queue })}
                onRetry={askGroupRetry}
                onDelete={askGroupDelete}
              />
            )}
          </Card>

          <Card testId="dead-card">
            <CardHeader
              title={`Dead tasks (${formatNumber(dead.length)}${data.data && data.data.dead.length >= 200 ? '+' : ''})`}
              subtitle={
                fp ? (
                  <>
                    Only the group “{selectedGroup?.message ?? fp}” ·{' '}
                    <button type="button" className="text-brand-600 hover:underline" onClick={() => setParams({ fp: '', command: '' })}>
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
                    hidden={!operator}
                    onClick={() =>
                      setConfirm({
                        title: `Retry ${plural(selected.size, 'task')}?`,
                        label: `Retry ${plural(selected.size, 'task')}`,
                        tone: 'primary',
                        body: 'The selected dead tasks go back to pending with one more attempt, and leave this list.',
                        run: async () => {
                          const r = await retryMany.run([...selected]);
                          if (r.ok) {
                            markRetried(
                              dead.filter((t) => selected.has(t.token)),
                              r.at,
                            );
                            setPicked(new Set());
                          }
                        },
                      })
                    }
                  >
                    Retry selected{selected.size ? ` (${selected.size})` : ''}
                  </Button>
                  <Button
                    size="sm"
                    variant="secondary"
                    disabled={busy || selected.size === 0}
                    data-testid="delete-selected"
                    hidden={!operator}
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
              <EmptyState title="No dead tasks" icon="check">
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
                onRetry={async (token) => {
                  const r = await retryOne.run(token);
                  if (r.ok)
                    markRetried(
                      dead.filter((t) => t.token === token),
                      r.at,
                    );
                }}
              />
            )}
          </Card>
        </div>
      )}

      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.title ?? ''}
        confirmLabel={confirm?.label}
        tone={confirm?.tone}
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
