'use client';
import Link from 'next/link';
import type { QueueCountsJson, StatsJson } from '../api';
import { formatAge, formatNumber } from '../format';
import { useNow } from '../live';
import { Badge } from '../ui/Badge';
import { DataTable, type Column } from '../ui/DataTable';
import { WhyLine, type QueueHealthJson } from '../why/WhyReason';

const STATUSES = ['waiting', 'pending', 'claimed', 'running', 'succeeded', 'dead', 'cancelled'] as const;
const SHORT: Record<(typeof STATUSES)[number], string> = {
  waiting: 'wait',
  pending: 'pend',
  claimed: 'clm',
  running: 'run',
  succeeded: 'ok',
  dead: 'dead',
  cancelled: 'canc',
};

const COLORS: Record<(typeof STATUSES)[number], string> = {
  waiting: 'text-violet-700',
  pending: 'text-sky-700',
  claimed: 'text-violet-700',
  running: 'text-amber-700',
  succeeded: 'text-emerald-700',
  dead: 'text-rose-700',
  cancelled: 'text-slate-600',
};

/** The columns: a queue's tasks claimed ahead (not started) show under its running count, not in a column of their own. */
const COLUMNS = STATUSES.filter((s) => s !== 'claimed');

type Row = QueueCountsJson & { total: number; isTotal?: boolean; health?: QueueHealthJson };

function count(n: number, status: (typeof STATUSES)[number]) {
  return <span className={n ? `tabular font-medium ${COLORS[status]}` : 'tabular text-slate-300'}>{formatNumber(n)}</span>;
}

/** `2 ready · 1 scheduled · 0 retrying` under a queue's pending count (not on a phone: the counts come first) */
function Split({ h }: { h: QueueHealthJson }) {
  const parts = [
    [h.ready, 'ready'],
    [h.scheduled, 'sched'],
    [h.retrying, 'retry'],
  ] as const;
  return (
    <div className="hidden whitespace-nowrap text-[11px] font-normal text-slate-400 sm:block" data-testid="pending-split">
      {parts
        .filter(([n]) => n > 0)
        .map(([n, label]) => `${formatNumber(n)} ${label}`)
        .join(' · ')}
    </div>
  );
}

/** age of the oldest ready task, ticking from the time the read gave */
function OldestReady({ h }: { h: QueueHealthJson | undefined }) {
  const now = useNow();
  if (!h?.oldestReadyAt) return <span className="text-slate-300">—</span>;
  const age = Math.max(0, now - Date.parse(h.oldestReadyAt));
  const tone = age > 300_000 ? 'text-rose-700' : age > 60_000 ? 'text-amber-700' : 'text-slate-700';
  return (
    <span className={`tabular ${tone}`} data-testid="oldest-ready" title={`oldest ready task enqueued ${h.oldestReadyAt}`}>
      {formatAge(age)}
    </span>
  );
}

export function QueueTable({ stats, health }: { stats: StatsJson; health?: QueueHealthJson[] }) {
  const byQueue = new Map((health ?? []).map((h) => [h.queue, h]));
  const rows: Row[] = stats.queues.map((q) => ({
    ...q,
    total: STATUSES.reduce((s, k) => s + q[k], 0),
    health: byQueue.get(q.queue),
  }));
  const t = stats.totals;
  const totalRow: Row = { queue: 'All queues', ...t, total: STATUSES.reduce((s, k) => s + t[k], 0), isTotal: true };
  if (health?.length) {
    const sum = (k: 'ready' | 'scheduled' | 'retrying') => health.reduce((n, h) => n + h[k], 0);
    totalRow.health = { ...health[0]!, ready: sum('ready'), scheduled: sum('scheduled'), retrying: sum('retrying'), why: null };
  }

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
          <div className="min-w-0 sm:max-w-[16rem]">
            {/* the badges wrap under a long name: the table fits 1280 px */}
            <span className="flex flex-wrap items-center gap-x-1.5 gap-y-0.5">
              <Link
                href={`/log?queue=${encodeURIComponent(r.queue)}`}
                title={r.queue}
                className="max-w-32 truncate font-mono text-sm font-medium text-slate-900 hover:text-brand-600 hover:underline sm:max-w-56"
              >
                {r.queue}
              </Link>
              <Link
                href={`/history/queues/${encodeURIComponent(r.queue)}`}
                className="hidden text-xs text-slate-400 hover:text-brand-600 hover:underline sm:inline"
                title={`History of ${r.queue} (30 days)`}
                data-testid="queue-history-link"
              >
                history
              </Link>
              {r.health?.paused && (
                <Badge tone="gray" testId="queue-paused">
                  paused
                </Badge>
              )}
              {r.health?.noWorker && (
                <Badge tone="red" testId="queue-no-worker">
                  no worker
                </Badge>
              )}
            </span>
            {/* why its work waits (the same reason as GET /api/queues/{name}/why); narrow on a phone, where this
                column stays pinned while the counts scroll under it */}
            {r.health?.why && (
              <div className="mt-0.5 max-w-[10rem] sm:max-w-[16rem]">
                <WhyLine why={r.health.why} testId="queue-why" />
              </div>
            )}
          </div>
        ),
    },
    ...COLUMNS.map<Column<Row>>((s) => ({
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
        s === 'pending' && r.health && r[s] > 0 ? (
          <>
            {count(r[s], s)}
            <Split h={r.health} />
          </>
        ) : s === 'running' && r.claimed > 0 ? (
          <>
            {count(r[s], s)}
            <div
              className="whitespace-nowrap text-[11px] font-normal text-violet-700"
              data-testid="claimed-ahead"
              title="claimed ahead by a pool, not started yet: not running"
            >
              +{formatNumber(r.claimed)} claimed
            </div>
          </>
        ) : s === 'dead' && r[s] > 0 && !r.isTotal ? (
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
    {
      key: 'oldest',
      header: <span title="age of the oldest ready task">oldest</span>,
      align: 'right',
      cell: (r) => (r.isTotal ? null : <OldestReady h={r.health} />),
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
