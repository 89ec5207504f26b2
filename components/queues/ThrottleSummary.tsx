'use client';
// A queue's throttle at a glance, under its name in the Queues list: its per-key limit, keyFrom path and
// busiest keys (the rate window's gauge stands beside the running gauge; ThrottlePanel edits them).
import { TopKeys } from './TopKeys';
import { Badge } from '../ui/Badge';
import type { QueueJson } from './types';

export function ThrottleSummary({ q }: { q: QueueJson }) {
  if (q.perKeyLimit === null && q.keyFrom === null && q.keys.length === 0) return null;
  return (
    <div className="mt-1.5 min-w-0 max-w-[20rem] space-y-1" data-testid="queue-throttle">
      {(q.perKeyLimit !== null || q.keyFrom !== null) && (
        <div className="flex flex-wrap items-center gap-1">
          {q.perKeyLimit !== null && (
            <Badge tone="violet" testId="throttle-per-key">
              {q.perKeyLimit} per key
            </Badge>
          )}
          {q.keyFrom !== null && (
            <span
              className="max-w-48 truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-600"
              title={`key ${q.keyFrom}: tasks without a key get theirs from this path of the payload (keyFrom)`}
            >
              key {q.keyFrom}
            </span>
          )}
        </div>
      )}
      <TopKeys queue={q.name} keys={q.keys} perKeyLimit={q.perKeyLimit} max={3} />
    </div>
  );
}
