'use client';
// One alert rule: enabled switch, name and kind, what it watches, where it posts (secret masked), its
// window, and its actions: send a test now, edit, delete (confirmed).
import { useState } from 'react';
import { deleteAlertRule, setAlertEnabled, testAlertRule } from '@/app/alerts/actions';
import { useCanOperate } from '../role';
import { useAction } from '../useAction';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import type { AlertRuleJson } from './types';

/** what a rule watches, in a few words */
export function watches(r: AlertRuleJson): string {
  const parts: string[] = [];
  if (r.kind === 'failure_streak') parts.push(`${r.command} · ${r.count} in a row`);
  else {
    if (r.queue) parts.push(`queue ${r.queue}`);
    else if (r.kind !== 'schedule_missed') parts.push('every queue');
    if (r.command) parts.push(`command ${r.command}`);
    if (r.kind === 'schedule_missed') parts.push(r.schedule ? `schedule ${r.schedule}` : 'every schedule');
    if (r.thresholdMs !== null) parts.push(`> ${Math.round(r.thresholdMs / 1000)} s`);
  }
  return parts.join(' · ');
}

export function AlertRow({ r, onEdit }: { r: AlertRuleJson; onEdit: () => void }) {
  const operator = useCanOperate();
  const [confirm, setConfirm] = useState(false);
  const toggle = useAction(setAlertEnabled, { success: (x) => `${x.rule.name} ${x.rule.enabled ? 'enabled' : 'disabled'}` });
  const test = useAction(testAlertRule, { success: () => `test delivery of ${r.name} queued` });
  const remove = useAction(deleteAlertRule, { success: () => `${r.name} deleted` });

  return (
    <li className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3" data-testid="alert-row" data-name={r.name}>
      <label className="flex items-center" title={r.enabled ? 'enabled: click to disable' : 'disabled: click to enable'}>
        <input
          type="checkbox"
          className="h-4 w-4 accent-brand-600"
          checked={r.enabled}
          disabled={!operator || toggle.busy}
          onChange={(e) => void toggle.run(r.id, e.target.checked)}
          data-testid="alert-enabled"
          aria-label={`${r.name} enabled`}
        />
      </label>
      <div className="min-w-[12rem] flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-mono text-sm font-medium text-slate-900">{r.name}</span>
          <Badge tone={r.enabled ? 'violet' : 'gray'}>{r.kindLabel}</Badge>
          {!r.enabled && <Badge tone="gray">disabled</Badge>}
        </div>
        <div className="mt-0.5 text-xs text-slate-500" data-testid="alert-watches">
          {watches(r)}
        </div>
      </div>
      <div className="min-w-[14rem] flex-1 text-xs text-slate-600">
        <div className="truncate font-mono" title={r.url}>
          {r.url}
        </div>
        <div className="mt-0.5 text-slate-500">
          {r.format === 'slack' ? 'Slack / Teams text' : 'JSON'} · {r.secret ? `signed (${r.secret})` : 'unsigned'} · once per{' '}
          {Math.round(r.dedupMs / 60_000)} min
        </div>
      </div>
      {operator && (
        <div className="flex gap-1.5">
          <Button size="sm" onClick={() => void test.run(r.id)} busy={test.busy} data-testid="alert-test">
            Send test
          </Button>
          <Button size="sm" variant="ghost" onClick={onEdit} data-testid="alert-edit">
            Edit
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setConfirm(true)} data-testid="alert-delete">
            Delete
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={confirm}
        title={`Delete alert rule ${r.name}?`}
        confirmLabel="Delete"
        busy={remove.busy}
        onClose={() => setConfirm(false)}
        onConfirm={async () => {
          const x = await remove.run(r.id);
          if (x.ok) setConfirm(false);
        }}
      >
        It stops firing. What it fired stays in the history.
      </ConfirmDialog>
    </li>
  );
}
