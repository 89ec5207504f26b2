'use client';
// "Why isn't it running?" on a pending task's page: the one reason (GET /api/tasks/{token}/why), its
// sentence, and the data behind it.
import Link from 'next/link';
import { useLive } from '../live';
import { Card, CardHeader } from '../ui/Card';
import { ErrorState, LoadingState } from '../ui/States';
import { WhyBadge, type WhyJson } from '../why/WhyReason';

function Holders({ holders }: { holders: { token: string | null; workerId: string | null }[] }) {
  return (
    <ul className="mt-2 space-y-0.5 text-xs text-slate-600">
      {holders.map((h, i) => (
        <li key={h.token ?? i} className="font-mono">
          {h.token ? (
            <Link href={`/tasks/${h.token}`} className="text-brand-600 hover:underline">
              {h.token.slice(0, 8)}
            </Link>
          ) : (
            '?'
          )}
          {h.workerId && <span className="text-slate-400"> on {h.workerId}</span>}
        </li>
      ))}
    </ul>
  );
}

function Behind({ why, queue }: { why: WhyJson; queue: string }) {
  const d = why.detail as Record<string, unknown>;
  switch (why.reason) {
    case 'paused':
    case 'limit_full':
    case 'key_full':
    case 'rate_limited':
      return (
        <>
          {(why.reason === 'limit_full' || why.reason === 'key_full') && Array.isArray(d.holders) && (
            <Holders holders={d.holders as never} />
          )}
          <p className="mt-2 flex flex-wrap gap-x-3 text-xs">
            <Link href={`/queues?queue=${encodeURIComponent(queue)}`} className="text-brand-600 hover:underline">
              Queue {queue} settings
            </Link>
            {typeof d.key === 'string' && (
              <Link
                href={`/tasks?queue=${encodeURIComponent(queue)}&key=${encodeURIComponent(d.key)}`}
                className="text-brand-600 hover:underline"
                data-testid="why-key-tasks"
              >
                Tasks of key {d.key}
              </Link>
            )}
          </p>
        </>
      );
    case 'stage_wait':
      return (
        <p className="mt-2 text-xs">
          <Link href={`/batches/${String(d.batchId)}`} className="text-brand-600 hover:underline">
            Batch #{String(d.batchId)}
          </Link>
        </p>
      );
    case 'no_worker':
    case 'workers_busy':
    case 'ready':
      return (
        <p className="mt-2 text-xs">
          <Link href="/workers" className="text-brand-600 hover:underline">
            Workers
          </Link>
        </p>
      );
    default:
      return null;
  }
}

export function WhyPanel({ token, queue }: { token: string; queue: string }) {
  const q = useLive<WhyJson>(['why', token], `/api/tasks/${encodeURIComponent(token)}/why`);
  const why = q.data;
  return (
    <Card className="mb-5" testId="why-panel">
      <CardHeader title="Why isn't it running?" />
      <div className="p-4">
        {q.isPending ? (
          <LoadingState rows={1} />
        ) : !why ? (
          <ErrorState error={q.error} onRetry={() => void q.refetch()} />
        ) : (
          <div data-testid="why-result" data-reason={why.reason}>
            <div className="flex flex-wrap items-center gap-2">
              <WhyBadge why={why} testId="why-reason" />
              <span className="text-sm text-slate-800" data-testid="why-text">
                {why.text}
              </span>
            </div>
            <Behind why={why} queue={queue} />
          </div>
        )}
      </div>
    </Card>
  );
}
