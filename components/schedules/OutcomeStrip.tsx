'use client';
// The last fires of a schedule as a strip of squares, oldest on the left: one per task, coloured by its status.
import Link from 'next/link';
import { cx } from '../ui/cx';
import type { ScheduleFireJson } from './types';

const COLOUR: Record<string, string> = {
  succeeded: 'bg-emerald-500',
  dead: 'bg-rose-500',
  running: 'bg-amber-400 animate-pulse',
  pending: 'bg-sky-400',
  cancelled: 'bg-slate-300',
};

export function OutcomeStrip({ fires, slots = 20 }: { fires: ScheduleFireJson[]; slots?: number }) {
  const shown = fires.slice(0, slots).reverse();
  const empty = Math.max(0, slots - shown.length);
  return (
    <div className="flex items-center gap-0.5" data-testid="outcome-strip" aria-label={`last ${shown.length} fires`}>
      {Array.from({ length: empty }, (_, i) => (
        <span key={`e${i}`} className="h-4 w-1.5 rounded-sm bg-slate-100" aria-hidden />
      ))}
      {shown.map((f) => (
        <Link
          key={f.token}
          href={`/tasks/${f.token}`}
          data-testid="outcome"
          data-status={f.status}
          title={`${f.manual ? 'run now' : 'tick'} ${f.fireAt}: ${f.status}`}
          className={cx('h-4 w-1.5 rounded-sm hover:ring-2 hover:ring-slate-400', COLOUR[f.status] ?? 'bg-slate-300', f.manual && 'h-3')}
        />
      ))}
    </div>
  );
}
