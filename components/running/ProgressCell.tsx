'use client';
// The progress a running attempt reported (ctx.progress): a bar with the percent and the last message.
import { RelativeTime } from '../ui/Time';

export interface ProgressJson {
  percent: number;
  message: string | null;
  at: string;
}

const pct = (n: number) => `${Math.round(n * 10) / 10}%`;

export function ProgressBar({ percent, className }: { percent: number; className?: string }) {
  const p = Math.min(100, Math.max(0, percent));
  return (
    <div
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={p}
      data-testid="progress-bar"
      className={`h-1.5 w-full overflow-hidden rounded-full bg-slate-200 ${className ?? ''}`}
    >
      <div className="h-full rounded-full bg-brand-600 transition-[width] duration-500" style={{ width: `${p}%` }} />
    </div>
  );
}

export function ProgressCell({ progress }: { progress: ProgressJson | null | undefined }) {
  if (!progress) return <span className="text-xs text-slate-400">—</span>;
  return (
    <div className="w-36 max-w-full" data-testid="progress-cell" data-percent={progress.percent}>
      <div className="mb-1 flex items-baseline justify-between gap-2 text-xs">
        <span className="tabular font-medium text-slate-800">{pct(progress.percent)}</span>
        <RelativeTime iso={progress.at} className="text-[11px] text-slate-400" />
      </div>
      <ProgressBar percent={progress.percent} />
      {progress.message && (
        <p className="mt-1 truncate text-xs text-slate-600" title={progress.message} data-testid="progress-message">
          {progress.message}
        </p>
      )}
    </div>
  );
}
