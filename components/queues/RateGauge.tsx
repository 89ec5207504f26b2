'use client';
// A rate-limited queue's window now: attempts started in the last period against the limit, as a bar, and
// when the window is full, when the next start is allowed (ticking). Per key: the busiest key's window.
import { periodText } from '@/lib/engine/keys';
import { formatNumber } from '../format';
import { useNow } from '../live';
import { cx } from '../ui/cx';
import type { QueueJson } from './types';

export type RateJson = NonNullable<QueueJson['rate']>;

/** `next start in 14 s` once the window is full; null while a start is allowed */
export function nextStartText(rate: RateJson, now: number): string | null {
  if (rate.nextAt === null) return null;
  const s = Math.max(0, Math.ceil((Date.parse(rate.nextAt) - now) / 1000));
  return s === 0 ? 'next start now' : `next start in ${s} s`;
}

export function RateGauge({ rate, wide = false }: { rate: RateJson; wide?: boolean }) {
  const now = useNow();
  const full = rate.started >= rate.limit;
  const next = nextStartText(rate, now);
  const per = periodText(rate.periodSeconds);
  const title =
    `${rate.started} of ${rate.limit} attempts started in the last ${rate.periodSeconds} s` +
    `${rate.perKey ? ' (the busiest key; each key has its own window)' : ''}` +
    `${full ? `: ready tasks wait, with no attempt spent${next ? `; ${next}` : ''}` : ''}`;
  return (
    <div
      data-testid="rate-gauge"
      data-started={rate.started}
      data-limit={rate.limit}
      data-full={String(full)}
      className="min-w-0 space-y-1"
      title={title}
    >
      <div className="flex flex-wrap items-baseline gap-x-1.5 whitespace-nowrap text-xs">
        <span className={cx('tabular font-semibold', full ? 'text-amber-700' : 'text-slate-900')} data-testid="rate-text">
          {formatNumber(rate.started)} / {formatNumber(rate.limit)}
        </span>
        <span className="text-slate-500">
          per {per}
          {rate.perKey && ' per key'}
        </span>
      </div>
      <div className={cx('relative h-1.5 max-w-full overflow-hidden rounded-full bg-slate-200', wide ? 'w-64' : 'w-32')} aria-hidden>
        <div
          className={cx('h-full rounded-full', full ? 'bg-amber-500' : 'bg-sky-500')}
          style={{ width: `${Math.min(100, (rate.started / rate.limit) * 100)}%` }}
        />
      </div>
      {next && (
        <div className="text-[11px] text-amber-700" data-testid="rate-next">
          {next}
        </div>
      )}
    </div>
  );
}
