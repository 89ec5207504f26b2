'use client';
// A queue's busiest concurrency keys: running (live lease) then pending, each a link to its tasks.
import Link from 'next/link';
import { formatNumber } from '../format';
import { cx } from '../ui/cx';
import type { QueueJson } from './types';

export type KeyJson = QueueJson['keys'][number];

export function TopKeys({
  queue,
  keys,
  perKeyLimit,
  max,
  testId = 'top-keys',
}: {
  queue: string;
  keys: KeyJson[];
  perKeyLimit: number | null;
  /** show at most this many (the rest counted) */
  max?: number;
  testId?: string;
}) {
  if (keys.length === 0) return null;
  const shown = max === undefined ? keys : keys.slice(0, max);
  return (
    <ul data-testid={testId} className="min-w-0 space-y-0.5 text-[11px]">
      {shown.map((k) => {
        const full = perKeyLimit !== null && k.running >= perKeyLimit;
        return (
          <li key={k.key} data-testid="top-key" data-key={k.key} className="flex min-w-0 items-baseline gap-1.5 whitespace-nowrap">
            <Link
              href={`/tasks?queue=${encodeURIComponent(queue)}&key=${encodeURIComponent(k.key)}`}
              className="min-w-0 max-w-40 truncate font-mono text-slate-700 hover:text-brand-600 hover:underline"
              title={`Tasks of key ${k.key}`}
            >
              {k.key}
            </Link>
            <span
              className={cx('tabular', k.running ? (full ? 'font-medium text-amber-700' : 'text-amber-700') : 'text-slate-300')}
              data-testid="top-key-running"
              title={perKeyLimit === null ? 'running' : `running, of at most ${perKeyLimit} per key`}
            >
              {formatNumber(k.running)}
              {perKeyLimit !== null && `/${perKeyLimit}`} run
            </span>
            <span className={cx('tabular', k.pending ? 'text-sky-700' : 'text-slate-300')} data-testid="top-key-pending">
              {formatNumber(k.pending)} pend
            </span>
          </li>
        );
      })}
      {keys.length > shown.length && <li className="text-slate-400">+{keys.length - shown.length} more</li>}
    </ul>
  );
}
