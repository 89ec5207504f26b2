import type { ReactNode } from 'react';
import { cx } from './cx';

export type Tone = 'gray' | 'blue' | 'green' | 'red' | 'amber' | 'violet' | 'slate';

const TONES: Record<Tone, string> = {
  gray: 'bg-slate-100 text-slate-700 ring-slate-200',
  slate: 'bg-slate-800 text-white ring-slate-800',
  blue: 'bg-sky-50 text-sky-800 ring-sky-200',
  green: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  red: 'bg-rose-50 text-rose-800 ring-rose-200',
  amber: 'bg-amber-50 text-amber-800 ring-amber-200',
  violet: 'bg-violet-50 text-violet-800 ring-violet-200',
};

const DOTS: Record<Tone, string> = {
  gray: 'bg-slate-400',
  slate: 'bg-white',
  blue: 'bg-sky-500',
  green: 'bg-emerald-500',
  red: 'bg-rose-500',
  amber: 'bg-amber-500',
  violet: 'bg-violet-500',
};

export function Badge({
  tone = 'gray',
  dot,
  pulse,
  children,
  className,
  testId,
}: {
  tone?: Tone;
  dot?: boolean;
  pulse?: boolean;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  return (
    <span
      data-testid={testId}
      className={cx(
        'inline-flex items-center gap-1.5 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset',
        TONES[tone],
        className,
      )}
    >
      {dot && (
        <span className="relative flex size-1.5">
          {pulse && <span className={cx('absolute inline-flex size-full animate-ping rounded-full opacity-75', DOTS[tone])} />}
          <span className={cx('relative inline-flex size-1.5 rounded-full', DOTS[tone])} />
        </span>
      )}
      {children}
    </span>
  );
}

export const STATUS_TONE: Record<string, Tone> = {
  waiting: 'violet',
  pending: 'blue',
  claimed: 'violet',
  running: 'amber',
  succeeded: 'green',
  dead: 'red',
  cancelled: 'gray',
};

export const OUTCOME_TONE: Record<string, Tone> = {
  running: 'amber',
  succeeded: 'green',
  failed: 'red',
  abandoned: 'violet',
  cancelled: 'gray',
  timed_out: 'red',
  suspended: 'blue',
};

export const WORKER_TONE: Record<string, Tone> = {
  running: 'green',
  stopping: 'amber',
  stopped: 'gray',
  lost: 'red',
};

export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <Badge tone={STATUS_TONE[status] ?? 'gray'} dot pulse={status === 'running'} testId={testId}>
      {status}
    </Badge>
  );
}

export function OutcomeBadge({ outcome, testId }: { outcome: string; testId?: string }) {
  return (
    <Badge tone={OUTCOME_TONE[outcome] ?? 'gray'} dot pulse={outcome === 'running'} testId={testId}>
      {outcome.replace('_', ' ')}
    </Badge>
  );
}

export function WorkerStateBadge({ state }: { state: string }) {
  return (
    <Badge tone={WORKER_TONE[state] ?? 'gray'} dot pulse={state === 'running'}>
      {state}
    </Badge>
  );
}

export function KindBadge({ kind }: { kind: string }) {
  return <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] uppercase tracking-wide text-slate-500">{kind}</span>;
}
