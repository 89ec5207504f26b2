'use client';
// The Tasks page's flow filter (?flow=ID, from a flow's page or a task's): a chip linking to the flow, with ×.
import Link from 'next/link';

export function FlowChip({ flow, onRemove }: { flow: string; onRemove: () => void }) {
  return (
    <div className="flex items-center gap-2 border-b border-slate-100 px-4 py-2 text-sm" data-testid="tasks-flow-filter">
      <span
        className={
          'inline-flex items-center gap-1 rounded-full bg-brand-50 py-0.5 pr-1 pl-2.5 text-xs font-medium text-brand-700 ' +
          'ring-1 ring-brand-100 ring-inset'
        }
      >
        Tasks of{' '}
        <Link href={`/flows/${encodeURIComponent(flow)}`} className="hover:underline" data-testid="tasks-flow-link">
          flow {flow}
        </Link>
        <button
          type="button"
          aria-label="Remove the flow filter"
          title="Remove the flow filter"
          data-testid="tasks-flow-remove"
          className="ml-0.5 rounded-full px-1 leading-none text-brand-600 hover:bg-brand-100 hover:text-brand-700"
          onClick={onRemove}
        >
          ×
        </button>
      </span>
    </div>
  );
}
