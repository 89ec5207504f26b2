'use client';
// One schedule: enabled switch, name and source, the expression in words, zone, next run (local time
// and a countdown), last run with its outcome, the last 20 outcomes, and its actions.
import { useCanOperate } from '../role';
import { useState } from 'react';
import { deleteSchedule, runScheduleNow } from '@/app/actions';
import { useNow } from '../live';
import { useAction } from '../useAction';
import { Badge, StatusBadge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { TokenLink } from '../ui/TokenLink';
import { cx } from '../ui/cx';
import { countdown, formatInZone } from './format';
import { OutcomeStrip } from './OutcomeStrip';
import { ScheduleSwitch } from './ScheduleSwitch';
import type { ScheduleJson } from './types';

const NOT_IN_CODE_TITLE = 'No longer declared by the handlers module of the last worker start: disabled. Delete it, or declare it again.';
const CODE_TITLE = 'Declared in code (a handlers module’s `schedules` export): edit it there; pause, resume and run now work here.';

function NextRun({ s }: { s: ScheduleJson }) {
  const now = useNow();
  if (!s.nextFireAt) return <span className="text-sm text-slate-400">{s.enabled ? 'never again' : '—'}</span>;
  return (
    <div className="min-w-0" title={`${s.nextFireAt} (${formatInZone(s.nextFireAt, s.timezone)} ${s.timezone})`}>
      <div className="tabular text-sm text-slate-800" data-testid="schedule-next">
        {formatInZone(s.nextFireAt)}
      </div>
      <div className="tabular text-xs text-slate-500" data-testid="schedule-countdown">
        {countdown(s.nextFireAt, now)}
      </div>
    </div>
  );
}

function LastRun({ s }: { s: ScheduleJson }) {
  const last = s.recent[0];
  if (!last) return <span className="text-sm text-slate-400">{s.lastFireAt ? 'pruned' : 'never'}</span>;
  return (
    <div className="flex min-w-0 flex-col gap-0.5" data-testid="schedule-last">
      <div className="flex items-center gap-1.5">
        <StatusBadge status={last.status} testId="schedule-last-status" />
        {last.manual && <Badge tone="violet">manual</Badge>}
      </div>
      <div className="flex flex-wrap items-center gap-x-1.5 text-xs text-slate-500">
        <span className="tabular whitespace-nowrap">{formatInZone(last.fireAt)}</span>
        <TokenLink token={last.token} />
      </div>
    </div>
  );
}

export function ScheduleRow({
  s,
  selected,
  onEdit,
  onHistory,
}: {
  s: ScheduleJson;
  selected: boolean;
  onEdit: () => void;
  onHistory: () => void;
}) {
  const operator = useCanOperate();
  const [confirming, setConfirming] = useState(false);
  const code = s.source === 'code' && s.declared;
  const run = useAction(runScheduleNow, { success: () => `${s.name}: fired once now` });
  const remove = useAction(deleteSchedule, { success: () => `${s.name} deleted; the tasks it fired stay` });

  return (
    <li
      data-testid="schedule-row"
      data-schedule={s.name}
      data-enabled={String(s.enabled)}
      className={cx('px-4 py-3', selected && 'bg-brand-50/60', !s.enabled && 'bg-slate-50/60')}
    >
      <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="flex min-w-0 items-start gap-3">
          <ScheduleSwitch name={s.name} enabled={s.enabled} />
          <div className="min-w-0">
            <div className="flex flex-wrap items-center gap-2">
              <span className="truncate font-mono text-sm font-semibold text-slate-900" data-testid="schedule-name-cell" title={s.name}>
                {s.name}
              </span>
              {s.source === 'code' &&
                (s.declared ? (
                  <span title={CODE_TITLE}>
                    <Badge tone="violet">code</Badge>
                  </span>
                ) : (
                  <span title={NOT_IN_CODE_TITLE}>
                    <Badge tone="amber">not in code</Badge>
                  </span>
                ))}
            </div>
            <p className="text-sm text-slate-700" data-testid="schedule-description">
              {s.description}
            </p>
            <p className="text-xs text-slate-500">
              <code className="font-mono">{s.cron}</code> · {s.timezone} · {s.kind} <span className="font-mono">{s.command}</span> →{' '}
              {s.queue}
            </p>
          </div>
        </div>
        <div className="flex flex-wrap items-center gap-1.5">
          {operator && (
            <Button size="sm" onClick={() => void run.run(s.name)} busy={run.busy} data-testid="schedule-run">
              Run now
            </Button>
          )}
          <Button
            size="sm"
            variant="ghost"
            hidden={!operator}
            onClick={onEdit}
            disabled={code}
            title={code ? CODE_TITLE : undefined}
            data-testid="schedule-edit"
          >
            Edit
          </Button>
          <Button size="sm" variant="ghost" onClick={onHistory} aria-pressed={selected} data-testid="schedule-history">
            History
          </Button>
          <Button
            size="sm"
            variant="ghost"
            onClick={() => setConfirming(true)}
            hidden={!operator}
            disabled={code}
            title={code ? CODE_TITLE : undefined}
            data-testid="schedule-delete"
            className="text-rose-600 hover:text-rose-700"
          >
            Delete
          </Button>
        </div>
      </div>
      <div className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-[11rem_16rem_minmax(0,1fr)] sm:pl-[6.5rem]">
        <div>
          <div className="text-[11px] font-medium uppercase tracking-wide text-slate-400">Next run</div>
          <NextRun s={s} />
        </div>
        <div>
          <div className="text-[11px] font-medium uppercase tracking-wide text-slate-400">Last run</div>
          <LastRun s={s} />
        </div>
        <div className="col-span-2 sm:col-span-1">
          <div className="text-[11px] font-medium uppercase tracking-wide text-slate-400">Last 20 fires</div>
          <div className="mt-1">
            <OutcomeStrip fires={s.recent} />
          </div>
        </div>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Delete schedule ${s.name}?`}
        confirmLabel="Delete schedule"
        busy={remove.busy}
        onClose={() => setConfirming(false)}
        onConfirm={() =>
          void remove.run(s.name).then((r) => {
            if (r.ok) setConfirming(false);
          })
        }
      >
        It stops firing at once. The tasks it already fired stay in the log.
      </ConfirmDialog>
    </li>
  );
}
