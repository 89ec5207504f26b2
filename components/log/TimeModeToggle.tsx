'use client';
// Local time or UTC for the Execution log's absolute times and range pickers (remembered in localStorage).
import { cx } from '../ui/cx';
import { zoneLabel, type TimeMode } from './time';

export function TimeModeToggle({ mode, onMode }: { mode: TimeMode; onMode: (m: TimeMode) => void }) {
  return (
    <div className="flex items-center gap-2 text-xs text-slate-500">
      <span>Times in</span>
      <div role="group" aria-label="Time zone" className="inline-flex rounded-md bg-white p-0.5 shadow-xs ring-1 ring-slate-200">
        {(['local', 'utc'] as const).map((m) => (
          <button
            key={m}
            type="button"
            aria-pressed={m === mode}
            data-testid={`time-mode-${m}`}
            title={zoneLabel(m)}
            suppressHydrationWarning
            onClick={() => onMode(m)}
            className={cx('rounded px-2.5 py-1 font-medium', m === mode ? 'bg-slate-900 text-white' : 'text-slate-600 hover:bg-slate-100')}
          >
            {m === 'local' ? 'Local' : 'UTC'}
          </button>
        ))}
      </div>
    </div>
  );
}
