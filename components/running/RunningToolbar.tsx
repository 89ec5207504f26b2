'use client';
// The Running page's filters (queue, command) and its selection bar: cancel the selected running tasks
// after a confirmation that states how many.
import { useCanOperate } from '../role';
import { useState } from 'react';
import { createPortal } from 'react-dom';
import { cancelRunning } from '@/app/running/actions';
import type { RunningJson } from '../api';
import { inputCls } from '../log/LogFilters';
import { useAction } from '../useAction';
import { clearRetried } from '../task/retried';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import type { RunningViewState } from './view';

export { applyView, isStale, type RunningViewState } from './view';

export function RunningToolbar({
  items,
  view,
  onView,
}: {
  items: readonly RunningJson[];
  view: RunningViewState;
  onView: (v: RunningViewState) => void;
}) {
  const queues = [...new Set(items.map((r) => r.queue))].sort();
  if (view.queue && !queues.includes(view.queue)) queues.push(view.queue);
  return (
    <div className="flex flex-wrap items-center gap-2 [&>input]:w-44 [&>select]:w-44" data-testid="running-filters">
      <select
        aria-label="Queue"
        data-testid="running-filter-queue"
        value={view.queue}
        onChange={(e) => onView({ ...view, queue: e.target.value })}
        className={inputCls}
      >
        <option value="">every queue</option>
        {queues.map((q) => (
          <option key={q} value={q}>
            {q}
          </option>
        ))}
      </select>
      <input
        type="search"
        aria-label="Command contains"
        placeholder="Command contains"
        data-testid="running-filter-command"
        value={view.command}
        onChange={(e) => onView({ ...view, command: e.target.value })}
        className={inputCls}
      />
      {(view.queue || view.command || view.sort !== 'chain') && (
        <button
          type="button"
          className="text-xs text-brand-600 hover:underline"
          onClick={() => onView({ queue: '', command: '', sort: 'chain' })}
        >
          reset
        </button>
      )}
    </div>
  );
}

function SelectionBarControl({ selected, disabled, onDone }: { selected: string[]; disabled: boolean; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const n = selected.length;
  const cancel = useAction(cancelRunning, {
    success: (r) =>
      `Cancel requested for ${r.cancelled} task${r.cancelled === 1 ? '' : 's'}${r.skipped ? ` (${r.skipped} had ended)` : ''}`,
  });
  if (n === 0) return null;
  return (
    <div
      className="flex items-center justify-between gap-2 border-b border-slate-100 bg-brand-50/50 px-4 py-2 text-sm"
      data-testid="running-selection"
    >
      <span>
        <b className="tabular" data-testid="running-selected-count">
          {n}
        </b>{' '}
        selected
      </span>
      <div className="flex gap-2">
        <Button size="sm" onClick={onDone}>
          Clear
        </Button>
        <Button size="sm" variant="danger" disabled={disabled} onClick={() => setOpen(true)} data-testid="running-bulk-cancel">
          Cancel {n} task{n === 1 ? '' : 's'}
        </Button>
      </div>
      {open &&
        createPortal(
          <ConfirmDialog
            open={open}
            title={`Cancel ${n} running task${n === 1 ? '' : 's'}?`}
            confirmLabel={`Cancel ${n} task${n === 1 ? '' : 's'}`}
            busy={cancel.busy}
            onClose={() => setOpen(false)}
            onConfirm={async () => {
              const r = await cancel.run(selected);
              if (r.ok) {
                for (const t of selected) clearRetried(t);
                setOpen(false);
                onDone();
              }
            }}
          >
            <p data-testid="running-bulk-explain">
              Each of the <b>{n}</b> selected tasks is asked to stop: a handler&apos;s AbortSignal fires, a SQL task&apos;s request is
              cancelled on the server. Tasks that end first are left as they are.
            </p>
          </ConfirmDialog>,
          document.body,
        )}
    </div>
  );
}

/** the operator's control; a viewer sees nothing */
export function SelectionBar(props: { selected: string[]; disabled: boolean; onDone: () => void }) {
  return useCanOperate() ? <SelectionBarControl {...props} /> : null;
}
