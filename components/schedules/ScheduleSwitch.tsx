'use client';
// Enabled switch of a schedule: pause (no fires until resumed) or resume (fires from the next tick).
import { useCanOperate } from '../role';
import { setScheduleEnabled } from '@/app/actions';
import { useAction } from '../useAction';
import { cx } from '../ui/cx';

function ScheduleSwitchControl({ name, enabled }: { name: string; enabled: boolean }) {
  const toggle = useAction(setScheduleEnabled, {
    success: (r) => (r.schedule.enabled ? `${name} resumed: it fires from the next tick` : `${name} paused: no fires until resumed`),
  });
  return (
    <button
      type="button"
      role="switch"
      aria-checked={enabled}
      aria-label={`Enable ${name}`}
      data-testid="schedule-switch"
      disabled={toggle.busy}
      onClick={() => void toggle.run(name, !enabled)}
      title={enabled ? 'Enabled: fires at every tick. Click to pause.' : 'Paused: fires nothing. Click to resume.'}
      className={
        'group inline-flex shrink-0 items-center gap-2 rounded-md py-0.5 text-xs font-medium ' + 'disabled:cursor-wait disabled:opacity-60'
      }
    >
      <span
        className={cx(
          'relative inline-flex h-5 w-9 shrink-0 items-center rounded-full transition-colors',
          enabled ? 'bg-emerald-500' : 'bg-slate-300 group-hover:bg-slate-400',
        )}
      >
        <span
          className={cx(
            'inline-block size-4 rounded-full bg-white shadow-sm transition-transform',
            enabled ? 'translate-x-4.5' : 'translate-x-0.5',
          )}
        />
      </span>
      <span className={cx('hidden w-14 text-left sm:inline', enabled ? 'text-emerald-700' : 'text-slate-500')}>
        {enabled ? 'enabled' : 'paused'}
      </span>
    </button>
  );
}

/** the operator's control; a viewer sees the value */
export function ScheduleSwitch(props: { name: string; enabled: boolean }) {
  return useCanOperate() ? (
    <ScheduleSwitchControl {...props} />
  ) : (
    <span className="text-xs text-slate-500">{props.enabled ? 'on' : 'paused'}</span>
  );
}
