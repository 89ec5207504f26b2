'use client';
// Failure groups: dead tasks of one fingerprint (error number + message with ids, numbers, quoted values and
// hex taken out), command and queue — with count, first and last seen, a 24-hour trend and the newest message.
import { useCanOperate } from '../role';
import Link from 'next/link';
import type { FailureGroupJson } from '../api';
import { formatNumber } from '../format';
import { Button } from '../ui/Button';
import { DataTable, type Column } from '../ui/DataTable';
import { RelativeTime } from '../ui/Time';

export function groupKey(g: { fingerprint: string; command: string; queue: string }) {
  return `${g.fingerprint}\u0000${g.command}\u0000${g.queue}`;
}

/** Dead tasks per hour over the last 24 hours as small bars (oldest left). */
export function Trend({ counts }: { counts: number[] }) {
  const max = Math.max(1, ...counts);
  const w = 3;
  const gap = 1;
  const h = 18;
  const total = counts.reduce((a, b) => a + b, 0);
  return (
    <svg
      width={counts.length * (w + gap)}
      height={h}
      role="img"
      aria-label={`${total} in the last 24 hours`}
      data-testid="group-trend"
      data-total={total}
      className="shrink-0"
    >
      <title>{`${formatNumber(total)} in the last 24 hours (per hour, oldest left)`}</title>
      {counts.map((n, i) => {
        const bh = n === 0 ? 1 : Math.max(2, Math.round((n / max) * h));
        return <rect key={i} x={i * (w + gap)} y={h - bh} width={w} height={bh} className={n === 0 ? 'fill-slate-200' : 'fill-rose-500'} />;
      })}
    </svg>
  );
}

function Message({ g, selected, onSelect }: { g: FailureGroupJson; selected: boolean; onSelect: () => void }) {
  return (
    <button
      type="button"
      onClick={onSelect}
      className="max-w-md break-words text-left text-sm text-rose-800 hover:underline"
      title={`Fingerprint ${g.fingerprint} · show only these tasks below`}
      data-testid="group-message"
    >
      {g.errorNumber !== null && <span className="mr-1.5 font-mono text-xs text-rose-600">#{g.errorNumber}</span>}
      {g.message}
      {selected && <span className="sr-only"> (selected)</span>}
    </button>
  );
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
  const operator = useCanOperate();
  const toggle = (g: FailureGroupJson) => onSelect(selected === groupKey(g) ? null : g);
  const actions = (g: FailureGroupJson, stacked = false) => (
    <div className={stacked ? 'flex flex-col items-stretch gap-1' : 'flex justify-end gap-1.5'}>
      <Button size="sm" disabled={busy} onClick={() => onRetry(g)} data-testid="group-retry" hidden={!operator}>
        Retry all
      </Button>
      <Button size="sm" variant="ghost" disabled={busy} onClick={() => onDelete(g)} data-testid="group-delete" hidden={!operator}>
        Delete
      </Button>
    </div>
  );
  const columns: Column<FailureGroupJson>[] = [
    {
      key: 'message',
      header: 'Error (newest message of the group)',
      mobile: 'primary',
      cell: (g) => <Message g={g} selected={selected === groupKey(g)} onSelect={() => toggle(g)} />,
    },
    {
      key: 'where',
      header: 'Queue · command',
      cell: (g) => (
        <div className="max-w-48 font-mono text-xs">
          <div className="truncate" title={g.queue}>
            {g.queue}
          </div>
          <div className="truncate text-slate-500" title={g.command}>
            {g.command}
          </div>
        </div>
      ),
    },
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
    { key: 'trend', header: '24 h', cell: (g) => <Trend counts={g.trend} /> },
    {
      key: 'seen',
      header: 'First · last seen',
      cell: (g) => (
        <div className="whitespace-nowrap text-xs">
          <div>
            <RelativeTime iso={g.firstAt} /> · <RelativeTime iso={g.lastAt} />
          </div>
          <Link href={`/tasks/${g.sampleToken}`} className="text-brand-600 hover:underline">
            newest task
          </Link>
        </div>
      ),
    },
    { key: 'actions', header: <span className="sr-only">Actions</span>, align: 'right', pin: 'end', cell: (g) => actions(g, true) },
  ];
  return (
    <DataTable
      testId="failure-groups"
      rows={groups}
      columns={columns}
      rowKey={groupKey}
      rowAttrs={(g) => ({ 'data-testid': 'failure-group', 'data-queue': g.queue, 'data-fingerprint': g.fingerprint })}
      rowClassName={(g) => (selected === groupKey(g) ? 'bg-rose-50' : undefined)}
      phoneRow={(g) => (
        <div className="space-y-1.5">
          <Message g={g} selected={selected === groupKey(g)} onSelect={() => toggle(g)} />
          <div className="flex flex-wrap items-center gap-x-3 text-xs text-slate-500">
            <span className="font-semibold text-slate-900">
              <span data-testid="group-count">{formatNumber(g.count)}</span>×
            </span>
            <span className="font-mono">{g.queue}</span>
            <span className="font-mono">{g.command}</span>
            <Trend counts={g.trend} />
            <span>
              first <RelativeTime iso={g.firstAt} /> · last <RelativeTime iso={g.lastAt} />
            </span>
            <Link href={`/tasks/${g.sampleToken}`} className="text-brand-600 hover:underline">
              sample
            </Link>
          </div>
          {actions(g)}
        </div>
      )}
    />
  );
}
