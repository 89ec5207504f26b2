// Progress of a batch's stages: one segmented bar per stage (succeeded, dead, cancelled, running, pending).
import { formatNumber } from '../format';
import { cx } from '../ui/cx';
import type { BatchJson, StageJson } from './types';

export const SEGMENTS = [
  { key: 'succeeded', label: 'succeeded', bar: 'bg-emerald-500', text: 'text-emerald-700' },
  { key: 'dead', label: 'dead', bar: 'bg-rose-500', text: 'text-rose-700' },
  { key: 'cancelled', label: 'cancelled', bar: 'bg-slate-400', text: 'text-slate-600' },
  { key: 'running', label: 'running', bar: 'bg-amber-400', text: 'text-amber-700' },
  { key: 'pending', label: 'pending', bar: 'bg-sky-200', text: 'text-sky-700' },
] as const;

type Counts = Pick<StageJson, 'total' | 'pending' | 'running' | 'succeeded' | 'dead' | 'cancelled'>;

export function countsTitle(c: Counts): string {
  return SEGMENTS.map((s) => `${c[s.key]} ${s.label}`).join(', ');
}

/** Where a stage stands: done, the active one, or waiting on an earlier stage. */
export function stageState(b: Pick<BatchJson, 'activeStage'>, s: StageJson): 'done' | 'active' | 'waiting' {
  if (s.pending + s.running === 0) return 'done';
  return s.stage === b.activeStage ? 'active' : 'waiting';
}

export function SegmentBar({ c, className, testId }: { c: Counts; className?: string; testId?: string }) {
  return (
    <div data-testid={testId} className={cx('flex overflow-hidden rounded-full bg-slate-100', className)} title={countsTitle(c)}>
      {c.total > 0 &&
        SEGMENTS.map((s) =>
          c[s.key] > 0 ? (
            <div
              key={s.key}
              className={cx('h-full', s.bar, s.key === 'running' && 'animate-pulse')}
              style={{ width: `${(c[s.key] / c.total) * 100}%` }}
            />
          ) : null,
        )}
    </div>
  );
}

/** Compact: the stages side by side, each as wide as its share of the tasks; the active one outlined. */
export function StageStrip({ batch }: { batch: BatchJson }) {
  if (batch.stages.length === 0) return <span className="text-xs italic text-slate-400">no tasks yet</span>;
  return (
    <div className="flex min-w-0 items-end gap-1" data-testid="stage-strip">
      {batch.stages.map((s) => {
        const state = stageState(batch, s);
        return (
          <div
            key={s.stage}
            className="min-w-9 flex-1"
            style={{ flexGrow: Math.max(1, Math.min(s.total, 12)) }}
            data-testid="stage-strip-item"
            data-stage={s.stage}
            data-state={state}
          >
            <div
              className={cx(
                'mb-0.5 overflow-hidden whitespace-nowrap text-[10px] leading-none',
                state === 'active' ? 'font-semibold text-amber-700' : 'text-slate-400',
              )}
            >
              S{s.stage}
              <span className="tabular ml-0.5 font-normal">
                {s.succeeded + s.dead + s.cancelled}/{s.total}
              </span>
            </div>
            <SegmentBar c={s} className={cx('h-2', state === 'active' && 'ring-2 ring-amber-300')} />
          </div>
        );
      })}
    </div>
  );
}

/** "2 running · 5 pending · 3 succeeded" — zero counts left out. */
export function CountsLine({ c, className }: { c: Counts; className?: string }) {
  const parts = [SEGMENTS[3], SEGMENTS[4], SEGMENTS[0], SEGMENTS[1], SEGMENTS[2]].filter((s) => c[s.key] > 0);
  if (parts.length === 0) return <span className={cx('text-xs text-slate-400', className)}>no tasks</span>;
  return (
    <span className={cx('flex flex-wrap gap-x-2 text-xs', className)} data-testid="counts-line">
      {parts.map((s) => (
        <span key={s.key} className={cx('whitespace-nowrap', s.text)} data-count={s.key}>
          <span className="tabular font-semibold">{formatNumber(c[s.key])}</span> {s.label}
        </span>
      ))}
    </span>
  );
}

export function Legend() {
  return (
    <div className="flex flex-wrap gap-3 text-xs text-slate-500">
      {SEGMENTS.map((s) => (
        <span key={s.key} className="flex items-center gap-1">
          <span className={cx('size-2 rounded-sm', s.bar)} />
          {s.label}
        </span>
      ))}
    </div>
  );
}
