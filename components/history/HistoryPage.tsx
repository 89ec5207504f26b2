'use client';
// The history of one queue or one command: throughput, failures, p50/p95 duration and enqueue→start
// latency over a chosen range, and links to the commands (of a queue) or queues (of a command) seen.
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { PageHeader } from '../ui/Card';
import { cx } from '../ui/cx';
import { ErrorState, LoadingState } from '../ui/States';
import { DurationLines, FailureBars, LatencyLines, RangePicker, ThroughputBars, toPoints } from './HistoryCharts';
import { useHistory, type HistoryRange } from './useHistory';

export const historyHref = (kind: 'queue' | 'command', name: string) =>
  `/history/${kind === 'queue' ? 'queues' : 'commands'}/${encodeURIComponent(name)}`;

export function HistoryPage({ kind, name }: { kind: 'queue' | 'command'; name: string }) {
  const [range, setRange] = useState<HistoryRange>('24h');
  const filter = kind === 'queue' ? { queue: name } : { command: name };
  const h = useHistory(range, filter);
  const data = useMemo(() => toPoints(h.data), [h.data]);
  const bucketMs = h.data?.bucketMs ?? 60_000;
  const others = kind === 'queue' ? (h.data?.commands ?? []) : (h.data?.queues ?? []);
  return (
    <>
      <PageHeader
        title={
          <span>
            <span className="text-slate-400">{kind === 'queue' ? 'Queue' : 'Command'} </span>
            <span className="font-mono" data-testid="history-name">
              {name}
            </span>
          </span>
        }
        description="Throughput, failures, attempt durations and enqueue → start latency, from the per-minute history (kept 30 days)."
        actions={<RangePicker value={range} onChange={setRange} />}
        meta={
          <div className="mt-2 flex flex-wrap gap-3 text-xs">
            <Link className="text-brand-600 hover:underline" href={kind === 'queue' ? `/queues` : `/log?q=${encodeURIComponent(name)}`}>
              {kind === 'queue' ? 'Queues' : 'Execution log'}
            </Link>
            {kind === 'queue' && (
              <Link className="text-brand-600 hover:underline" href={`/log?queue=${encodeURIComponent(name)}`}>
                Execution log
              </Link>
            )}
          </div>
        }
      />
      {h.isPending ? (
        <LoadingState rows={6} />
      ) : h.isError && !h.data ? (
        <ErrorState error={h.error} onRetry={() => void h.refetch()} title="Could not load the history" />
      ) : (
        <div data-testid="history-charts" data-range={h.data?.range ?? range} className="grid gap-4 lg:grid-cols-2">
          <ThroughputBars data={data} bucketMs={bucketMs} />
          <FailureBars data={data} bucketMs={bucketMs} />
          <DurationLines data={data} bucketMs={bucketMs} />
          <LatencyLines data={data} bucketMs={bucketMs} />
        </div>
      )}
      {others.length > 0 && (
        <div className="mt-5 text-sm">
          <h2 className="mb-2 text-xs font-medium uppercase tracking-wide text-slate-500">
            {kind === 'queue' ? 'Commands in the history' : 'Queues in the history'}
          </h2>
          <div className="flex flex-wrap gap-2">
            {others.map((o) => (
              <Link
                key={o}
                href={historyHref(kind === 'queue' ? 'command' : 'queue', o)}
                className={cx(
                  'rounded border border-slate-200 bg-white px-2 py-0.5 font-mono text-xs text-slate-700',
                  'hover:border-brand-300 hover:text-brand-700',
                )}
              >
                {o}
              </Link>
            ))}
          </div>
        </div>
      )}
    </>
  );
}
