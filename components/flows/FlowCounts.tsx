'use client';
// A flow's nodes by state: a bar of the six states and one count per state (a link to those tasks, or a
// filter of the node list when `onPick` is given).
import Link from 'next/link';
import { formatNumber } from '../format';
import { cx } from '../ui/cx';
import { FLOW_STATES, STATE_STYLE, type FlowCountsJson, type FlowState } from './types';

export function CountsBar({ counts, total, className }: { counts: FlowCountsJson; total: number; className?: string }) {
  return (
    <div className={cx('flex h-2 overflow-hidden rounded-full bg-slate-100', className)} data-testid="flow-bar">
      {total > 0 &&
        FLOW_STATES.map((s) =>
          counts[s] > 0 ? (
            <div key={s} className={STATE_STYLE[s].bar} style={{ width: `${(100 * counts[s]) / total}%` }} title={`${counts[s]} ${s}`} />
          ) : null,
        )}
    </div>
  );
}

export function CountChips({
  counts,
  flowId,
  picked,
  onPick,
}: {
  counts: FlowCountsJson;
  flowId: number;
  picked?: FlowState | null;
  onPick?: (s: FlowState | null) => void;
}) {
  return (
    <ul className="flex flex-wrap gap-1.5" data-testid="flow-counts">
      {FLOW_STATES.map((s) => {
        const n = counts[s];
        const body = (
          <>
            <span className={cx('size-2 rounded-full', STATE_STYLE[s].bar)} />
            {s}
            <span className="tabular font-semibold" data-testid={`flow-count-${s}`}>
              {formatNumber(n)}
            </span>
          </>
        );
        const cls = cx(
          'inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs ring-1 ring-inset',
          picked === s ? 'bg-slate-900 text-white ring-slate-900' : 'bg-white text-slate-700 ring-slate-200 hover:bg-slate-100',
          n === 0 && picked !== s && 'opacity-50',
        );
        return (
          <li key={s}>
            {onPick ? (
              <button type="button" className={cls} aria-pressed={picked === s} onClick={() => onPick(picked === s ? null : s)}>
                {body}
              </button>
            ) : (
              <Link className={cls} href={`/tasks?flow=${flowId}&status=${s}`}>
                {body}
              </Link>
            )}
          </li>
        );
      })}
    </ul>
  );
}
