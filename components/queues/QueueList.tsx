'use client';
// Every queue: its running/limit gauge, pending depth, granted tokens, the limit editor, its throttle (rate
// window, busiest keys; edited below the list) and the pause switch.
import Link from 'next/link';
import { rateText } from '@/lib/engine/keys';
import { formatNumber } from '../format';
import { Badge } from '../ui/Badge';
import { DataTable, type Column } from '../ui/DataTable';
import { cx } from '../ui/cx';
import { ThrottleSummary } from './ThrottleSummary';
import { RateGauge } from './RateGauge';
import { Gauge } from './Gauge';
import { LimitEditor } from './LimitEditor';
import { PauseSwitch } from './PauseSwitch';
import { Sparkline } from '../history/Sparkline';
import type { QueueJson } from './types';
import { QueueWhy } from './QueueWhy';
import type { QueueHealthJson } from '../why/WhyReason';

function Count({ n, tone, testId }: { n: number; tone: string; testId: string }) {
  return (
    <span data-testid={testId} className={n ? `tabular font-medium ${tone}` : 'tabular text-slate-300'}>
      {formatNumber(n)}
    </span>
  );
}

function QueueName({
  q,
  selected,
  onSelect,
  onEditThrottle,
}: {
  q: QueueJson;
  selected: boolean;
  onSelect: (name: string) => void;
  onEditThrottle: (name: string) => void;
}) {
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5">
      <button
        type="button"
        onClick={() => onSelect(selected ? '' : q.name)}
        aria-pressed={selected}
        title={`${q.name}: show ${selected ? 'every queue' : 'only this queue'} in the grants and history below`}
        data-testid="queue-select"
        className={cx(
          'max-w-56 truncate text-left font-mono text-sm font-medium hover:underline',
          selected ? 'text-brand-700' : 'text-slate-900 hover:text-brand-600',
        )}
      >
        {q.name}
      </button>
      {q.paused && <Badge tone="amber">paused</Badge>}
      {q.concurrencyLimit === 1 && <Badge tone="violet">singleton</Badge>}
      <Link
        href={`/log?queue=${encodeURIComponent(q.name)}`}
        className="shrink-0 text-xs text-slate-400 hover:text-brand-600 hover:underline"
        title={`Execution log of ${q.name}`}
      >
        log
      </Link>
      <Link
        href={`/history/queues/${encodeURIComponent(q.name)}`}
        className="shrink-0 text-xs text-slate-400 hover:text-brand-600 hover:underline"
        title={`History of ${q.name} (30 days)`}
        data-testid="queue-history-link"
      >
        history
      </Link>
      <button
        type="button"
        onClick={() => onEditThrottle(q.name)}
        className="shrink-0 text-xs text-slate-400 hover:text-brand-600 hover:underline"
        title={`Throttle of ${q.name}: per-key limit, keyFrom, rate limit and top keys`}
        data-testid="throttle-edit"
      >
        throttle
      </button>
    </div>
  );
}

export function QueueList({
  queues,
  selected,
  onSelect,
  onEditThrottle,
  health,
}: {
  queues: QueueJson[];
  selected: string;
  onSelect: (name: string) => void;
  /** open the throttle editor of a queue */
  onEditThrottle: (name: string) => void;
  /** per queue: pending split, oldest ready age, why its work waits (GET /api/why) */
  health?: QueueHealthJson[];
}) {
  const healthOf = new Map((health ?? []).map((h) => [h.queue, h]));
  const columns: Column<QueueJson>[] = [
    {
      key: 'queue',
      header: 'Queue',
      cell: (q) => (
        // as wide as its why note at most: the links wrap under a long name, the note under itself (the table
        // fits 1280 px)
        <div className="max-w-[19rem]">
          <QueueName q={q} selected={q.name === selected} onSelect={onSelect} onEditThrottle={onEditThrottle} />
          {/* why its ready work waits, the pending split and the oldest ready age (GET /api/why) */}
          <QueueWhy health={healthOf.get(q.name)} />
          <ThrottleSummary q={q} />
        </div>
      ),
    },
    {
      key: 'gauge',
      header: <span title="running tasks against the limit; below, starts in the rate window against the rate">Running / limit</span>,
      cell: (q) => (
        <div className="space-y-2">
          <Gauge running={q.running} limit={q.concurrencyLimit} paused={q.paused} />
          {q.rate && <RateGauge rate={q.rate} />}
        </div>
      ),
    },
    { key: 'pending', header: 'Pending', align: 'right', cell: (q) => <Count n={q.pending} tone="text-sky-700" testId="queue-pending" /> },
    {
      key: 'spark',
      header: <span title="succeeded per minute over the last hour">Last hour</span>,
      cell: (q) => <Sparkline queue={q.name} />,
    },
    {
      key: 'granted',
      header: <span title="concurrency tokens granted right now">Granted</span>,
      align: 'right',
      cell: (q) =>
        q.concurrencyLimit === null && q.granted === 0 ? (
          <span className="text-slate-300">—</span>
        ) : (
          <Count n={q.granted} tone="text-amber-700" testId="queue-granted" />
        ),
    },
    {
      // the row's controls, one column pinned at the end: in view beside the name however narrow the window
      key: 'controls',
      header: 'Limit · pause',
      pin: 'end',
      cell: (q) => (
        <div className="flex flex-col items-start gap-1.5">
          <LimitEditor queue={q.name} limit={q.concurrencyLimit} />
          <PauseSwitch queue={q.name} paused={q.paused} />
        </div>
      ),
    },
  ];

  return (
    <DataTable
      testId="queue-list"
      rows={queues}
      columns={columns}
      rowKey={(q) => q.name}
      rowAttrs={(q) => ({
        'data-testid': 'queue-row',
        'data-queue': q.name,
        'data-paused': String(q.paused),
        'data-limit': q.concurrencyLimit === null ? 'unlimited' : String(q.concurrencyLimit),
        'data-per-key-limit': q.perKeyLimit === null ? 'none' : String(q.perKeyLimit),
        'data-rate': rateText(q.rateLimit),
      })}
      rowClassName={(q) => (q.name === selected ? 'bg-brand-50' : undefined)}
      phoneRow={(q) => (
        <div className="space-y-2">
          <div className="flex items-center justify-between gap-2">
            <div className="min-w-0 flex-1">
              <QueueName q={q} selected={q.name === selected} onSelect={onSelect} onEditThrottle={onEditThrottle} />
            </div>
            <PauseSwitch queue={q.name} paused={q.paused} />
          </div>
          <div className="flex flex-wrap items-end justify-between gap-x-4 gap-y-1">
            <Gauge running={q.running} limit={q.concurrencyLimit} paused={q.paused} />
            {q.rate && <RateGauge rate={q.rate} />}
            <div className="flex gap-3 text-xs text-slate-500">
              <span>
                pending <Count n={q.pending} tone="text-sky-700" testId="queue-pending" />
              </span>
              {(q.concurrencyLimit !== null || q.granted > 0) && (
                <span>
                  granted <Count n={q.granted} tone="text-amber-700" testId="queue-granted" />
                </span>
              )}
            </div>
          </div>
          <div className="flex items-center gap-2">
            <span className="text-xs text-slate-500">Limit</span>
            <LimitEditor queue={q.name} limit={q.concurrencyLimit} />
          </div>
          <ThrottleSummary q={q} />
          <QueueWhy health={healthOf.get(q.name)} />
        </div>
      )}
    />
  );
}
