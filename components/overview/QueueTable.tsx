'use client';
import Link from 'next/link';
import type { QueueCountsJson, StatsJson } from '../api';
import { formatNumber } from '../format';
import { DataTable, type Column } from '../ui/DataTable';

const STATUSES = ['pending', 'running', 'succeeded', 'dead', 'cancelled'] as const;
const SHORT: Record<(typeof STATUSES)[number], string> = {
  pending: 'pend',
  running: 'run',
  succeeded: 'ok',
  dead: 'dead',
  cancelled: 'canc',
};

const COLORS: Record<(typeof STATUSES)[number], string> = {
  pending: 'text-sky-700',
  running: 'text-amber-700',
  succeeded: 'text-emerald-700',
  dead: 'text-rose-700',
  cancelled: 'text-slate-600',
};

type Row = QueueCountsJson & { total: number; isTotal?: boolean };

function count(n: number, status: (typeof STATUSES)[number]) {
  return <span className={n ? `tabular font-medium ${COLORS[status]}` : 'tabular text-slate-300'}>{formatNumber(n)}</span>;
}

export function QueueTable({ stats }: { stats: StatsJson }) {
  const rows: Row[] = stats.queues.map((q) => ({ ...q, total: STATUSES.reduce((s, k) => s + q[k], 0) }));
  const t = stats.totals;
  const totalRow: Row = { queue: 'All queues', ...t, total: STATUSES.reduce((s, k) => s + t[k], 0), isTotal: true };

  const columns: Column<Row>[] = [
    {
      key: 'queue',
      header: 'Queue',
      mobile: 'primary',
      cell: (r) =>
        r.isTotal ? (
          <span className="whitespace-nowrap font-semibold text-slate-900">
            All<span className="hidden sm:inline"> queues</span>
          </span>
        ) : (
          <Link
            href={`/log?queue=${encodeURIComponent(r.queue)}`}
            className="font-mono text-sm font-medium text-slate-900 hover:text-brand-600 hover:underline"
          >
            {r.queue}
          </Link>
        ),
    },
    ...STATUSES.map<Column<Row>>((s) => ({
      key: s,
      header: (
        <>
          <span className="hidden sm:inline">{s}</span>
          <span className="sm:hidden" title={s}>
            {SHORT[s]}
          </span>
        </>
      ),
      align: 'right',
      cell: (r) =>
        s === 'dead' && r[s] > 0 && !r.isTotal ? (
          <Link href={`/failed?queue=${encodeURIComponent(r.queue)}`} className="hover:underline">
            {count(r[s], s)}
          </Link>
        ) : (
          count(r[s], s)
        ),
    })),
    {
      key: 'total',
      header: 'total',
      align: 'right',
      cell: (r) => <span className="tabular font-semibold text-slate-900">{formatNumber(r.total)}</span>,
    },
  ];

  return (
    <DataTable
      testId="queue-table"
      rows={rows.length > 1 ? [...rows, totalRow] : rows}
      columns={columns}
      rowKey={(r) => (r.isTotal ? '__total__' : r.queue)}
      rowAttrs={(r) => ({ 'data-queue': r.isTotal ? undefined : r.queue })}
      rowClassName={(r) => (r.isTotal ? 'bg-slate-50 font-semibold' : undefined)}
      phone="table"
    />
  );
}
