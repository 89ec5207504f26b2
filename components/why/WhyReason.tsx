'use client';
// The "why isn't it running?" reason as a small badge plus its sentence (task detail, Queues, Overview).
import type { WhyJson } from '@/lib/api/why';
import { Badge, type Tone } from '../ui/Badge';

export type { WhyJson };
export type { QueueHealthJson } from '@/lib/api/why';

export const WHY_LABEL: Record<WhyJson['reason'], string> = {
  ready: 'ready',
  workers_busy: 'workers busy',
  scheduled: 'scheduled',
  retrying: 'retrying',
  paused: 'paused',
  limit_full: 'limit full',
  key_full: 'key full',
  rate_limited: 'rate limited',
  stage_wait: 'stage wait',
  no_worker: 'no worker',
  not_pending: 'not waiting',
  waiting: 'waiting for parents',
  sleeping: 'sleeping',
  waiting_event: 'waiting for event',
};

export const WHY_TONE: Record<WhyJson['reason'], Tone> = {
  ready: 'green',
  workers_busy: 'amber',
  scheduled: 'blue',
  retrying: 'amber',
  paused: 'gray',
  limit_full: 'amber',
  key_full: 'amber',
  rate_limited: 'amber',
  stage_wait: 'violet',
  no_worker: 'red',
  not_pending: 'gray',
  waiting: 'violet',
  sleeping: 'blue',
  waiting_event: 'violet',
};

export function WhyBadge({ why, testId }: { why: WhyJson; testId?: string }) {
  return (
    <Badge tone={WHY_TONE[why.reason]} testId={testId}>
      {WHY_LABEL[why.reason]}
    </Badge>
  );
}

/** badge and sentence side by side, the sentence wrapping under itself (never cut: it is the answer) */
export function WhyLine({ why, testId }: { why: WhyJson; testId?: string }) {
  return (
    <span className="flex min-w-0 items-start gap-1.5" data-testid={testId} data-reason={why.reason}>
      <span className="shrink-0">
        <WhyBadge why={why} />
      </span>
      <span className="min-w-0 break-words text-xs text-slate-600">{why.text}</span>
    </span>
  );
}
