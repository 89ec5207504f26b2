'use client';
// A queue's throughput over the last hour (succeeded per minute), drawn as a small inline SVG; every
// sparkline of the page shares one request (GET /api/history/queues). Links to the queue's history.
import Link from 'next/link';
import { historyHref } from './HistoryPage';
import { useSparklines } from './useHistory';

const W = 96;
const H = 22;

export function Sparkline({ queue }: { queue: string }) {
  const q = useSparklines();
  const counts = q.data?.queues.find((r) => r.queue === queue)?.counts ?? null;
  const total = counts?.reduce((s, n) => s + n, 0) ?? 0;
  const max = counts ? Math.max(1, ...counts) : 1;
  const step = counts && counts.length > 1 ? W / (counts.length - 1) : W;
  const path = counts
    ? counts.map((n, i) => `${i === 0 ? 'M' : 'L'}${(i * step).toFixed(1)},${(H - 1 - (n / max) * (H - 3)).toFixed(1)}`).join(' ')
    : '';
  return (
    <Link
      href={historyHref('queue', queue)}
      className="inline-flex items-center gap-2 text-slate-400 hover:text-brand-600"
      title={`${total} succeeded in the last hour (per minute, max ${max}) — open the history of ${queue}`}
      data-testid="queue-sparkline"
      data-total={total}
    >
      <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} aria-hidden className="overflow-visible">
        <line x1={0} x2={W} y1={H - 1} y2={H - 1} stroke="#e2e8f0" strokeWidth={1} />
        {counts && total > 0 && <path d={`${path} L${W},${H - 1} L0,${H - 1} Z`} fill="#10b981" fillOpacity={0.15} />}
        {counts && total > 0 && <path d={path} fill="none" stroke="#10b981" strokeWidth={1.25} />}
      </svg>
      <span className="tabular w-10 text-right text-xs">{q.data ? total.toLocaleString('en-US') : ''}</span>
    </Link>
  );
}
