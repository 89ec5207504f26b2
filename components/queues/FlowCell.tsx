'use client';
// A queue's flow control at a glance (the Queues list): its per-key limit and keyFrom path, the rate window's
// gauge, and the busiest keys; a link that opens the flow-control editor of the queue.
import { rateText } from '@/lib/engine/keys';
import { Badge } from '../ui/Badge';
import { RateGauge } from './RateGauge';
import { TopKeys } from './TopKeys';
import type { QueueJson } from './types';

/** Whether a queue has any flow control or keyed work to show. */
export const hasFlow = (q: QueueJson) => q.perKeyLimit !== null || q.keyFrom !== null || q.rateLimit !== null || q.keys.length > 0;

export function FlowCell({ q, onEdit }: { q: QueueJson; onEdit?: () => void }) {
  const edit = onEdit && (
    <button
      type="button"
      onClick={onEdit}
      className="shrink-0 text-xs text-slate-400 hover:text-brand-600 hover:underline"
      data-testid="flow-edit"
      title={`Per-key limit, keyFrom and rate limit of ${q.name}`}
    >
      {hasFlow(q) ? 'edit' : 'set up'}
    </button>
  );
  if (!hasFlow(q)) return <div className="flex items-center gap-2 text-xs text-slate-300">— {edit}</div>;
  return (
    <div className="min-w-0 max-w-64 space-y-1.5" data-testid="queue-flow">
      <div className="flex flex-wrap items-center gap-1">
        {q.perKeyLimit !== null && (
          <Badge tone="violet" testId="flow-per-key">
            {q.perKeyLimit} per key
          </Badge>
        )}
        {q.keyFrom !== null && (
          <span className="max-w-40 truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-600" title="keyFrom">
            {q.keyFrom}
          </span>
        )}
        {q.rateLimit !== null && q.rate === null && <Badge tone="slate">{rateText(q.rateLimit)}</Badge>}
        {edit}
      </div>
      {q.rate && <RateGauge rate={q.rate} />}
      <TopKeys queue={q.name} keys={q.keys} perKeyLimit={q.perKeyLimit} max={3} />
    </div>
  );
}
