'use client';
// Tasks claimed ahead: a pool's local queue, `claimed` in the store and not started — not running, so not in the
// list above and not counted as running anywhere. A line per claiming worker: "claimed ahead: 12 on worker w1".
import Link from 'next/link';
import type { ClaimedJson } from '../api';
import { formatNumber } from '../format';
import { cx } from '../ui/cx';

export function ClaimedAhead({ claimed }: { claimed: ClaimedJson[] | undefined }) {
  if (!claimed || claimed.length === 0) return null;
  const total = claimed.reduce((n, c) => n + c.tasks, 0);
  return (
    <section
      data-testid="running-claimed"
      className={cx(
        'mt-3 rounded-md border border-violet-200 bg-violet-50/60 px-3 py-2 text-xs text-violet-900',
        'dark:border-violet-900 dark:bg-violet-950/30 dark:text-violet-200',
      )}
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <span>
          <b data-testid="running-claimed-total">{formatNumber(total)}</b> claimed ahead, not started: each starts when a slot of its pool
          frees, or goes back to pending.
        </span>
        <Link href="/tasks?status=claimed" className="text-violet-700 underline-offset-2 hover:underline dark:text-violet-300">
          list them
        </Link>
      </div>
      <ul className="mt-1 space-y-0.5">
        {claimed.map((c) => (
          <li key={c.workerId} data-testid="running-claimed-worker" className="truncate">
            claimed ahead: <span className="tabular font-semibold">{formatNumber(c.tasks)}</span> on worker{' '}
            <span className="font-mono">{c.workerId}</span>
            <span className="text-violet-700/80 dark:text-violet-300/80"> ({c.queues.join(', ')})</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
