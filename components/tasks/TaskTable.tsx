'use client';
// The Tasks page's rows: a checkbox, the task (command → its detail page), state, queue (and concurrency key),
// priority, attempts, a payload preview, when, and the last error.
import Link from 'next/link';
import type { TaskJson } from '../api';
import { useNow } from '../live';
import { Badge, KindBadge, STATUS_TONE } from '../ui/Badge';
import { DataTable, type Column } from '../ui/DataTable';
import { RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import { RetriedNote } from '../task/RetriedNote';
import { payloadPreview, taskState } from './tabs';

const SUB_TONE = { ready: 'blue', scheduled: 'violet', retrying: 'amber', sleeping: 'blue', 'waiting for event': 'violet' } as const;

function State({ t }: { t: TaskJson }) {
  const now = useNow();
  const s = taskState(t, now);
  const tone = s in SUB_TONE ? SUB_TONE[s as keyof typeof SUB_TONE] : (STATUS_TONE[s] ?? 'gray');
  return (
    <Badge tone={tone} dot pulse={s === 'running'} testId="task-state">
      {s}
    </Badge>
  );
}

/** The time that matters in the task's state. */
function When({ t }: { t: TaskJson }) {
  const now = useNow();
  const s = taskState(t, now);
  const [label, iso] =
    s === 'scheduled' || s === 'retrying'
      ? ['runs', t.runAfter]
      : s === 'sleeping'
        ? ['wakes', t.runAfter]
        : s === 'running'
          ? ['started', t.startedAt]
          : t.finishedAt
            ? ['finished', t.finishedAt]
            : ['created', t.createdAt];
  // two lines, as the task beside it: the table fits 1280 px
  return (
    <span className="text-xs text-slate-500">
      <span className="block">{label}</span> <RelativeTime iso={iso} className="whitespace-nowrap text-slate-700" />
    </span>
  );
}

export function TaskTable({
  items,
  selected,
  onToggle,
  onToggleAll,
}: {
  items: TaskJson[];
  selected: Set<string>;
  onToggle: (token: string) => void;
  onToggleAll: (all: boolean) => void;
}) {
  const allSelected = items.length > 0 && items.every((t) => selected.has(t.token));
  const columns: Column<TaskJson>[] = [
    {
      key: 'select',
      header: (
        <input
          type="checkbox"
          aria-label="Select every task on this page"
          data-testid="tasks-select-page"
          className="size-4 rounded border-slate-300 accent-brand-600"
          checked={allSelected}
          onChange={(e) => onToggleAll(e.target.checked)}
        />
      ),
      mobile: 'primary',
      className: 'w-8',
      cell: (t) => (
        <input
          type="checkbox"
          aria-label={`Select ${t.token}`}
          data-testid="tasks-select"
          className="size-4 rounded border-slate-300 accent-brand-600"
          checked={selected.has(t.token)}
          onChange={() => onToggle(t.token)}
        />
      ),
    },
    {
      key: 'task',
      header: 'Task',
      mobile: 'primary',
      pin: 'start',
      cell: (t) => (
        <div className="min-w-0">
          <div className="flex items-center gap-1.5">
            <KindBadge kind={t.kind} />
            <Link
              href={`/tasks/${t.token}`}
              className="block max-w-64 truncate font-mono text-xs text-slate-800 hover:underline"
              title={t.command}
              data-testid="task-command"
            >
              {t.command}
            </Link>
          </div>
          <div className="mt-0.5 flex flex-wrap gap-x-2 text-xs">
            <TokenLink token={t.token} testId="task-token" />
            {t.batchId !== null && (
              <Link href={`/batches/${t.batchId}`} className="text-violet-700 hover:underline">
                batch {t.batchId}
                {t.stage !== null && ` · stage ${t.stage}`}
              </Link>
            )}
            {t.flowId !== null && (
              <Link
                href={`/flows/${t.flowId}`}
                className="max-w-40 truncate text-brand-700 hover:underline"
                title={
                  t.flowNode !== null
                    ? `flow ${t.flowId} · ${t.flowNode}: node ${t.flowNode} of flow ${t.flowId}`
                    : `flow ${t.flowId}: after a task of flow ${t.flowId}`
                }
                data-testid="task-flow"
              >
                flow {t.flowId}
                {t.flowNode !== null && ` · ${t.flowNode}`}
              </Link>
            )}
          </div>
        </div>
      ),
    },
    {
      key: 'state',
      header: 'State',
      cell: (t) => (
        <>
          <State t={t} />
          <RetriedNote task={t} className="mt-0.5 min-w-36 max-w-40" />
        </>
      ),
    },
    {
      key: 'queue',
      header: 'Queue',
      cell: (t) => (
        <>
          <span className="block max-w-28 truncate whitespace-nowrap font-mono text-xs" title={t.queue}>
            {t.queue}
          </span>
          {t.concurrencyKey !== null && (
            <Link
              href={`/tasks?queue=${encodeURIComponent(t.queue)}&key=${encodeURIComponent(t.concurrencyKey)}`}
              className="block max-w-28 truncate whitespace-nowrap text-[11px] text-slate-500 hover:text-brand-600 hover:underline"
              title={`Concurrency key ${t.concurrencyKey}: show the tasks of this key`}
              data-testid="task-key"
            >
              key <span className="font-mono">{t.concurrencyKey}</span>
            </Link>
          )}
        </>
      ),
    },
    {
      key: 'priority',
      header: 'Prio',
      align: 'right',
      cell: (t) => <span className="tabular text-xs">{t.priority}</span>,
    },
    {
      key: 'attempts',
      header: 'Tries',
      align: 'right',
      cell: (t) => (
        <span className="tabular whitespace-nowrap text-xs">
          {t.attempts} / {t.maxAttempts}
        </span>
      ),
    },
    {
      key: 'payload',
      header: 'Payload',
      cell: (t) => {
        const p = payloadPreview(t.payload, 60);
        return p ? (
          <code
            className="block max-w-28 truncate text-[11px] text-slate-600"
            title={payloadPreview(t.payload, 2000)}
            data-testid="task-payload"
          >
            {p}
          </code>
        ) : (
          <span className="text-xs text-slate-300">—</span>
        );
      },
    },
    { key: 'when', header: 'When', cell: (t) => <When t={t} /> },
    {
      key: 'error',
      header: 'Last error',
      cell: (t) =>
        t.lastError ? (
          // two lines at most, and narrower when the table needs the room (a truncated line would not give way)
          <p
            className="line-clamp-2 min-w-36 max-w-56 break-words text-xs text-rose-800"
            title={`${t.lastError.number !== null ? `#${t.lastError.number} ` : ''}${t.lastError.message}`}
          >
            {t.lastError.number !== null && <span className="mr-1 font-mono text-rose-500">#{t.lastError.number}</span>}
            {t.lastError.message}
          </p>
        ) : (
          <span className="text-xs text-slate-300">—</span>
        ),
    },
  ];
  // the last error only when a task on the page has one (the table fits 1280 px without it)
  const shown = items.some((t) => t.lastError) ? columns : columns.filter((c) => c.key !== 'error');
  return (
    <DataTable
      rows={items}
      columns={shown}
      rowKey={(t) => t.token}
      rowAttrs={(t) => ({ 'data-testid': 'task-row', 'data-token': t.token })}
      rowClassName={(t) => (selected.has(t.token) ? 'bg-brand-50' : undefined)}
      testId="tasks-table"
    />
  );
}
