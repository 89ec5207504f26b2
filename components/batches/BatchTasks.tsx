'use client';
// The batch's tasks by stage, then in enqueue order: each links to its task page.
import Link from 'next/link';
import { useState } from 'react';
import type { TaskJson } from '../api';
import { formatNumber } from '../format';
import { StatusBadge } from '../ui/Badge';
import { Card, CardHeader } from '../ui/Card';
import { DataTable, type Column } from '../ui/DataTable';
import { EmptyState } from '../ui/States';
import { Elapsed } from '../ui/Time';
import { TokenLink } from '../ui/TokenLink';
import { cx } from '../ui/cx';

function Command({ t }: { t: TaskJson }) {
  return (
    <Link href={`/tasks/${t.token}`} className="block max-w-64 truncate font-mono text-xs text-slate-800 hover:underline" title={t.command}>
      {t.command}
    </Link>
  );
}

function Duration({ t }: { t: TaskJson }) {
  if (!t.startedAt) return <span className="text-xs text-slate-300">—</span>;
  return <Elapsed from={t.startedAt} to={t.status === 'running' ? null : (t.finishedAt ?? t.startedAt)} />;
}

const columns: Column<TaskJson>[] = [
  {
    key: 'stage',
    header: 'Stage',
    align: 'right',
    cell: (t) => (
      <span className="tabular text-xs font-medium text-slate-700" data-testid="batch-task-stage">
        {t.stage ?? '—'}
      </span>
    ),
  },
  { key: 'token', header: 'Task', cell: (t) => <TokenLink token={t.token} testId="batch-task-token" /> },
  { key: 'command', header: 'Command', cell: (t) => <Command t={t} /> },
  { key: 'queue', header: 'Queue', cell: (t) => <span className="font-mono text-xs text-slate-600">{t.queue}</span> },
  { key: 'status', header: 'Status', cell: (t) => <StatusBadge status={t.status} testId="batch-task-status" /> },
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
  { key: 'duration', header: 'Duration', align: 'right', cell: (t) => <Duration t={t} /> },
  {
    key: 'error',
    header: 'Last error',
    cell: (t) =>
      t.lastError ? (
        <span className="block max-w-64 truncate text-xs text-rose-700" title={t.lastError.message}>
          {t.lastError.message}
        </span>
      ) : (
        <span className="text-xs text-slate-300">—</span>
      ),
  },
];

function PhoneRow({ t }: { t: TaskJson }) {
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2">
        <span
          className="tabular rounded bg-slate-100 px-1.5 py-0.5 text-[11px] font-semibold text-slate-600"
          data-testid="batch-task-stage"
        >
          S{t.stage ?? '—'}
        </span>
        <div className="min-w-0 flex-1">
          <Command t={t} />
        </div>
        <StatusBadge status={t.status} testId="batch-task-status" />
      </div>
      <div className="flex flex-wrap gap-x-3 text-xs text-slate-500">
        <TokenLink token={t.token} testId="batch-task-token" />
        <span className="font-mono">{t.queue}</span>
        <span>
          attempt {t.attempts}/{t.maxAttempts}
        </span>
        <Duration t={t} />
      </div>
      {t.lastError && (
        <p className="truncate text-xs text-rose-700" title={t.lastError.message}>
          {t.lastError.message}
        </p>
      )}
    </div>
  );
}

export function BatchTasks({ tasks, total, stages }: { tasks: TaskJson[]; total: number; stages: number[] }) {
  const [stage, setStage] = useState<number | null>(null);
  const rows = stage === null ? tasks : tasks.filter((t) => t.stage === stage);
  return (
    <Card testId="batch-tasks">
      <CardHeader
        title={`Tasks${total > tasks.length ? ` (first ${formatNumber(tasks.length)} of ${formatNumber(total)})` : ''}`}
        subtitle="By stage, then in enqueue order"
        actions={
          stages.length > 1 ? (
            <div
              role="group"
              aria-label="Stage"
              className="flex max-w-full flex-wrap rounded-md bg-white p-0.5 shadow-xs ring-1 ring-slate-200"
            >
              {[null, ...stages].map((s) => (
                <button
                  key={s ?? 'all'}
                  type="button"
                  aria-pressed={s === stage}
                  onClick={() => setStage(s)}
                  className={cx(
                    'rounded px-2 py-1 text-xs font-medium',
                    s === stage ? 'bg-slate-900 text-white' : 'text-slate-600 hover:bg-slate-100',
                  )}
                >
                  {s === null ? 'all' : `S${s}`}
                </button>
              ))}
            </div>
          ) : undefined
        }
      />
      {rows.length === 0 ? (
        <EmptyState title="No tasks in this batch yet">
          Add tasks with <code className="font-mono">readpast enqueue … --batch ID --stage K</code> or{' '}
          <code className="font-mono">POST /api/batches/ID/tasks</code>.
        </EmptyState>
      ) : (
        <DataTable
          testId="batch-task-table"
          rows={rows}
          columns={columns}
          rowKey={(t) => t.token}
          rowAttrs={(t) => ({
            'data-testid': 'batch-task-row',
            'data-token': t.token,
            'data-stage': String(t.stage ?? ''),
            'data-status': t.status,
          })}
          phoneRow={(t) => <PhoneRow t={t} />}
        />
      )}
    </Card>
  );
}
