'use client';
// Bulk actions over the Tasks page's selection or over everything its filter matches: retry, cancel, run now,
// change priority, delete. Each first asks the server how many tasks it would change (walking the filter,
// bounded), shows that exact count for confirmation, and passes it back: the server refuses when more would
// change by then. Done in chunks server-side; one audit row per action.
import { useState } from 'react';
import { previewBulk, runBulk, type BulkDone } from '@/app/tasks/actions';
import { MAX_PRIORITY, MIN_PRIORITY } from '@/lib/engine/limits';
import { formatNumber } from '../format';
import { useCanOperate } from '../role';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { useToast } from '../ui/Toast';

export interface BulkBarProps {
  /** tokens ticked on the page; empty: none ticked (the bar then offers "all matching the filter") */
  selected: string[];
  /** the page's filter as its URL query string, without '?' (e.g. `status=dead&queue=reports`) */
  query: string;
  /** how many tasks the filter matches, when known (tab counts); null when not known exactly */
  matching: number | null;
  /** called after an action finished, with what it did: clear the selection, refetch */
  onDone: (done: BulkDone) => void;
}

type Action = 'retry' | 'cancel' | 'run_now' | 'priority' | 'delete';

const VERB: Record<Action, { label: string; past: string; what: string; danger?: boolean }> = {
  retry: { label: 'Retry', past: 'queued for retry', what: 'dead or cancelled tasks go back to pending with one more attempt' },
  cancel: { label: 'Cancel', past: 'cancelled', what: 'pending tasks are cancelled; running ones are asked to stop', danger: true },
  run_now: { label: 'Run now', past: 'due now', what: 'scheduled and retrying tasks become due now' },
  priority: { label: 'Set priority', past: 'reprioritised', what: 'pending, dead and cancelled tasks get the new priority' },
  delete: { label: 'Delete', past: 'deleted', what: 'finished tasks and their log rows are removed for good', danger: true },
};

const plural = (n: number) => `${formatNumber(n)} task${n === 1 ? '' : 's'}`;

interface Asking {
  action: Action;
  count: number;
  matched: number;
  request: Record<string, unknown>;
}

export function BulkBar({ selected, query, matching, onDone }: BulkBarProps) {
  const toast = useToast();
  const [priority, setPriority] = useState('0');
  const [asking, setAsking] = useState<Asking | null>(null);
  const [previewing, setPreviewing] = useState<Action | null>(null);
  const run = useAction(runBulk, {
    success: (r: BulkDone) =>
      `${plural(r.done)} ${VERB[r.action as Action]?.past ?? 'done'}` +
      (r.dedupKeyHeld ? ` · ${formatNumber(r.dedupKeyHeld)} skipped: dedup key held by a newer or unfinished task` : '') +
      (r.skipped - r.dedupKeyHeld + r.missing
        ? ` · ${formatNumber(r.skipped - r.dedupKeyHeld + r.missing)} changed meanwhile and were left alone`
        : ''),
  });

  const operator = useCanOperate();
  const onSelection = selected.length > 0;
  const scope = onSelection
    ? `${formatNumber(selected.length)} selected`
    : matching === null
      ? 'all matching the filter'
      : `all ${formatNumber(matching)} matching the filter`;

  const ask = async (action: Action) => {
    const request: Record<string, unknown> = onSelection ? { action, tokens: selected } : { action, filter: query };
    if (action === 'priority') {
      const p = Number(priority);
      if (!Number.isInteger(p) || p < MIN_PRIORITY || p > MAX_PRIORITY) {
        toast('error', `priority: an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}`);
        return;
      }
      request.priority = p;
    }
    setPreviewing(action);
    try {
      const r = await previewBulk(request);
      if (!r.ok) toast('error', r.field ? `${r.field}: ${r.error}` : r.error);
      else setAsking({ action, count: r.count, matched: r.matched, request });
    } catch (err) {
      toast('error', err instanceof Error ? err.message : 'the request failed');
    } finally {
      setPreviewing(null);
    }
  };

  const busy = run.busy || previewing !== null;
  if (!operator) return null;
  const v = asking ? VERB[asking.action] : null;

  return (
    <div
      className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-slate-50 px-4 py-2 text-sm"
      data-testid="bulk-bar"
      role="toolbar"
      aria-label="Bulk actions"
    >
      <span className="mr-1 text-slate-600" data-testid="bulk-scope">
        {scope}
      </span>
      {(['retry', 'cancel', 'run_now'] as const).map((a) => (
        <Button key={a} size="sm" disabled={busy} busy={previewing === a} onClick={() => void ask(a)} data-testid={`bulk-${a}`}>
          {VERB[a].label}
        </Button>
      ))}
      <span className="flex items-center gap-1">
        <input
          type="number"
          aria-label="New priority"
          data-testid="bulk-priority-value"
          className="w-20 rounded-md border border-slate-300 px-2 py-1 text-xs"
          min={MIN_PRIORITY}
          max={MAX_PRIORITY}
          value={priority}
          onChange={(e) => setPriority(e.target.value)}
        />
        <Button size="sm" disabled={busy} busy={previewing === 'priority'} onClick={() => void ask('priority')} data-testid="bulk-priority">
          {VERB.priority.label}
        </Button>
      </span>
      <Button
        size="sm"
        variant="ghost"
        disabled={busy}
        busy={previewing === 'delete'}
        onClick={() => void ask('delete')}
        data-testid="bulk-delete"
      >
        {VERB.delete.label}
      </Button>
      <ConfirmDialog
        open={asking !== null}
        title={asking && v ? (asking.count === 0 ? `Nothing to ${v.label.toLowerCase()}` : `${v.label} ${plural(asking.count)}?`) : ''}
        confirmLabel={asking ? `${v?.label} ${plural(asking.count)}` : ''}
        tone={v?.danger ? 'danger' : 'primary'}
        busy={run.busy}
        onClose={() => setAsking(null)}
        onConfirm={async () => {
          if (!asking) return;
          if (asking.count === 0) return setAsking(null);
          const r = await run.run({ ...asking.request, expected: asking.count });
          setAsking(null);
          if (r.ok) onDone(r);
        }}
      >
        {asking && v && (
          <span data-testid="bulk-confirm-text">
            <b data-testid="bulk-confirm-count">{formatNumber(asking.count)}</b>
            {` of the ${onSelection ? `${formatNumber(asking.matched)} selected tasks` : `${plural(asking.matched)} matching the filter`}`}
            {` will change: ${v.what}.`}
            {asking.count < asking.matched && ` The other ${formatNumber(asking.matched - asking.count)} are left as they are.`}
          </span>
        )}
      </ConfirmDialog>
    </div>
  );
}
