'use client';
// Pause (no new claims for the queue; running tasks finish) or resume it, with setQueuePaused.
import { useCanOperate } from '../role';
import { setQueuePaused } from '@/app/actions';
import { useAction } from '../useAction';
import { cx } from '../ui/cx';

function PauseSwitchControl({ queue, paused }: { queue: string; paused: boolean }) {
  const toggle = useAction(setQueuePaused, {
    success: (r) => (r.queue.paused ? `${queue} paused: running tasks finish, nothing new starts` : `${queue} resumed`),
  });
  return (
    <button
      type="button"
      role="switch"
      aria-checked={paused}
      aria-label={`Pause ${queue}`}
      data-testid="pause-switch"
      disabled={toggle.busy}
      onClick={() => void toggle.run(queue, !paused)}
      title={paused ? 'Paused: workers skip this queue. Click to resume.' : 'Taking work. Click to pause new claims.'}
      className="group inline-flex items-center gap-2 rounded-md py-0.5 text-xs font-medium disabled:cursor-wait disabled:opacity-60"
    >
      <span
        className={cx(
          'relative inline-flex h-5 w-9 shrink-0 items-center rounded-full transition-colors',
          paused ? 'bg-amber-500' : 'bg-slate-300 group-hover:bg-slate-400',
        )}
      >
        <span
          className={cx(
            'inline-block size-4 rounded-full bg-white shadow-sm transition-transform',
            paused ? 'translate-x-4.5' : 'translate-x-0.5',
          )}
        />
      </span>
      <span className={cx('w-12 text-left', paused ? 'text-amber-700' : 'text-slate-500')}>{paused ? 'paused' : 'active'}</span>
    </button>
  );
}

/** the operator's control; a viewer sees the value */
export function PauseSwitch(props: { queue: string; paused: boolean }) {
  return useCanOperate() ? (
    <PauseSwitchControl {...props} />
  ) : (
    <span data-testid="pause-state" className={props.paused ? 'text-xs font-medium text-amber-700' : 'text-xs text-slate-500'}>
      {props.paused ? 'paused' : 'active'}
    </span>
  );
}
