'use client';
import Link from 'next/link';
import type { FailureGroupJson } from '../api';
import { formatNumber } from '../format';
import { Button } from '../ui/Button';
import { DataTable, type Column } from '../ui/DataTable';
import { RelativeTime } from '../ui/Time';

export function groupKey(g: { queue: string; message: string }) {
  return `${g.queue}\u0000${g.message}`;
}

export function FailureGroups({
  groups,
  selected,
  onSelect,
  onRetry,
  onDelete,
  busy,
}: {
  groups: FailureGroupJson[];
  selected: string | null;
  onSelect: (g: FailureGroupJson | null) => void;
  onRetry: (g: FailureGroupJson) => void;
  onDelete: (g: FailureGroupJson) => void;
  busy: boolean;
}) {
  const columns: Column<FailureGroupJson>[] = [
    {
      key: 'message',
      header: 'Error message',
      mobile: 'primary',
      cell: (g) => (
        <button
          type="button"
          onClick={() => onSelect(selected === groupKey(g) ? null : g)}
          className="max-w-xl break-words text-left text-sm text-rose-800 hover:underline"
          title="Show only these tasks below"
          data-testid="group-message"
        >
          {g.message}
        </button>
      ),
    },
    { key: 'queue', header: 'Queue', cell: (g) => <span className="font-mono text-xs">{g.queue}</span> },
    { key: 'command', header: 'Command', cell: (g) => <span className="font-mono text-xs">{g.command}</span> },
    {
      key: 'count',
      header: 'Count',
      align: 'right',
      cell: (g) => (
        <span className="tabular font-semibold text-slate-900" data-testid="group-count">
          {formatNumber(g.count)}
        </span>
      ),
    },
    {
      key: 'last',
      header: 'Last seen',
      cell: (g) => (
        <span className="whitespace-nowrap text-xs">
          <RelativeTime iso={g.lastAt} /> ·{' '}
          <Link href={`/tasks/${g.sampleToken}`} className="text-brand-600 hover:underline">
            sample
          </Link>
        </span>
      ),
    },
    {
      key: 'actions',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      cell: (g) => (
        <div className="flex justify-end gap-1.5">
          <Button size="sm" disabled={busy} onClick={() => onRetry(g)} data-testid="group-retry">
            Retry all
          </Button>
          <Button size="sm" variant="ghost" disabled={busy} onClick={() => onDelete(g)} data-testid="group-delete">
            Delete
          </Button>
        </div>
      ),
    },
  ];
  return (
    <DataTable
      testId="failure-groups"
      rows={groups}
      columns={columns}
      rowKey={groupKey}
      rowAttrs={(g) => ({ 'data-testid': 'failure-group', 'data-queue': g.queue })}
      rowClassName={(g) => (selected === groupKey(g) ? 'bg-rose-50/60' : undefined)}
      phoneRow={(g) => (
        <div className="space-y-1.5">
          <button
            type="button"
            onClick={() => onSelect(selected === groupKey(g) ? null : g)}
            className="break-words text-left text-sm text-rose-800"
            data-testid="group-message"
          >
            {g.message}
          </button>
          <div className="flex flex-wrap items-center gap-x-3 text-xs text-slate-500">
            <span className="font-semibold text-slate-900">
              <span data-testid="group-count">{formatNumber(g.count)}</span>×
            </span>
            <span className="font-mono">{g.queue}</span>
            <span className="font-mono">{g.command}</span>
            <span>
              last <RelativeTime iso={g.lastAt} />
            </span>
            <Link href={`/tasks/${g.sampleToken}`} className="text-brand-600 hover:underline">
              sample
            </Link>
          </div>
          <div className="flex gap-1.5">
            <Button size="sm" disabled={busy} onClick={() => onRetry(g)} data-testid="group-retry">
              Retry all
            </Button>
            <Button size="sm" variant="ghost" disabled={busy} onClick={() => onDelete(g)} data-testid="group-delete">
              Delete
            </Button>
          </div>
        </div>
      )}
    />
  );
}
