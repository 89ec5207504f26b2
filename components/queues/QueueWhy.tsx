'use client';
// A queue's "why isn't it running?" cell: the reason its ready work waits, the pending split and the
// oldest ready task's age (GET /api/why).
import { formatAge, formatNumber } from '../format';
import { useNow } from '../live';
import { WhyLine, type QueueHealthJson } from '../why/WhyReason';

export function QueueWhy({ health: h }: { health: QueueHealthJson | undefined }) {
  const now = useNow();
  if (!h?.why) return null;
  const split = [
    [h.ready, 'ready'],
    [h.scheduled, 'scheduled'],
    [h.retrying, 'retrying'],
  ] as const;
  return (
    <div className="mt-1 min-w-0 max-w-[20rem]" data-testid="queue-why-cell">
      <WhyLine why={h.why} testId="queue-why" />
      <div className="mt-0.5 text-[11px] text-slate-400">
        {split
          .filter(([n]) => n > 0)
          .map(([n, l]) => `${formatNumber(n)} ${l}`)
          .join(' · ')}
        {h.oldestReadyAt && (
          <span data-testid="queue-oldest-ready"> · oldest ready {formatAge(Math.max(0, now - Date.parse(h.oldestReadyAt)))}</span>
        )}
      </div>
    </div>
  );
}
