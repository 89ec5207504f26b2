'use client';
import { useCanOperate } from '../role';
import type { TaskJson } from '../api';
import { Button } from '../ui/Button';
import { DataTable, type Column } from '../ui/DataTable';
import { RelativeTime } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import { RetriedNote } from '../task/RetriedNote';

export function DeadTasks({
  tasks,
  selected,
  onToggle,
  onToggleAll,
  onRetry,
  busy,
}: {
  tasks: TaskJson[];
  selected: Set<string>;
  onToggle: (token: string) => void;
  onToggleAll: (all: boolean) => void;
  onRetry: (token: string) => void;
  busy: boolean;
}) {
  const operator = useCanOperate();
  const allSelected = tasks.length > 0 && tasks.every((t) => selected.has(t.token));
  const columns: Column<TaskJson>[] = [
    {
      key: 'select',
      header: (
        <input
          type="checkbox"
          aria-label="Select all"
          data-testid="dead-select-all"
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
          data-testid="dead-select"
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
        <div className="flex items-center gap-2">
          <TokenLink token={t.token} testId="dead-token" />
          <span className="max-w-56 truncate font-mono text-xs text-slate-800" title={t.command}>
            {t.command}
          </span>
        </div>
      ),
    },
    { key: 'queue', header: 'Queue', cell: (t) => <span className="font-mono text-xs">{t.queue}</span> },
    {
      key: 'attempts',
      header: 'Attempts',
      align: 'right',
      cell: (t) => (
        <span className="tabular text-xs">
          {t.attempts} / {t.maxAttempts}
        </span>
      ),
    },
    {
      key: 'error',
      header: 'Last error',
      cell: (t) =>
        t.lastError ? (
          <>
            <p className="max-w-md break-words text-xs text-rose-800" data-testid="dead-error">
              {t.lastError.number !== null && <span className="mr-1 font-mono text-rose-500">#{t.lastError.number}</span>}
              {t.lastError.message}
            </p>
            <RetriedNote task={t} className="mt-0.5" />
          </>
        ) : (
          <RetriedNote task={t} />
        ),
    },
    { key: 'died', header: 'Died', cell: (t) => <RelativeTime iso={t.finishedAt} className="whitespace-nowrap text-xs text-slate-600" /> },
    {
      key: 'actions',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      pin: 'end',
      cell: (t) => (
        <Button size="sm" disabled={busy} onClick={() => onRetry(t.token)} data-testid="dead-retry" hidden={!operator}>
          Retry
        </Button>
      ),
    },
  ];
  return (
    <DataTable
      testId="dead-tasks"
      rows={tasks}
      columns={columns}
      rowKey={(t) => t.token}
      rowAttrs={(t) => ({ 'data-testid': 'dead-row', 'data-token': t.token })}
      rowClassName={(t) => (selected.has(t.token) ? 'bg-brand-50' : undefined)}
      phoneRow={(t) => (
        <div className="flex gap-3">
          <input
            type="checkbox"
            aria-label={`Select ${t.token}`}
            data-testid="dead-select"
            className="mt-0.5 size-4 shrink-0 rounded border-slate-300 accent-brand-600"
            checked={selected.has(t.token)}
            onChange={() => onToggle(t.token)}
          />
          <div className="min-w-0 flex-1 space-y-1">
            <div className="flex items-center gap-2">
              <span className="min-w-0 flex-1 truncate font-mono text-sm text-slate-900" title={t.command}>
                {t.command}
              </span>
              <Button size="sm" disabled={busy} onClick={() => onRetry(t.token)} data-testid="dead-retry" hidden={!operator}>
                Retry
              </Button>
            </div>
            {t.lastError && (
              <p className="break-words text-xs text-rose-800" data-testid="dead-error">
                {t.lastError.number !== null && <span className="mr-1 font-mono text-rose-500">#{t.lastError.number}</span>}
                {t.lastError.message}
              </p>
            )}
            <RetriedNote task={t} />
            <div className="flex flex-wrap gap-x-3 text-xs text-slate-500">
              <TokenLink token={t.token} testId="dead-token" />
              <span className="font-mono">{t.queue}</span>
              <span>
                {t.attempts} / {t.maxAttempts} attempts
              </span>
              <span>
                died <RelativeTime iso={t.finishedAt} />
              </span>
            </div>
          </div>
        </div>
      )}
    />
  );
}
