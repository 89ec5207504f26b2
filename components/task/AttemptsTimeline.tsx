'use client';
import type { AttemptJson } from '../api';
import { formatLocal } from '../format';
import { ABANDON_TEXT } from './abandon';
import { OUTCOME_TONE, OutcomeBadge } from '../ui/Badge';
import { cx } from '../ui/cx';
import { Elapsed, RelativeTime } from '../ui/Time';
import { TraceLink } from './TraceLink';

/** a timeline's dot by tone (attempts here, a durable task's steps in StepsTimeline) */
export const DOT: Record<string, string> = {
  amber: 'bg-amber-400 ring-amber-100',
  blue: 'bg-sky-500 ring-sky-100',
  green: 'bg-emerald-500 ring-emerald-100',
  red: 'bg-rose-500 ring-rose-100',
  violet: 'bg-violet-500 ring-violet-100',
  gray: 'bg-slate-400 ring-slate-100',
};

/**
 * Each attempt, with its trace when it was traced: the first attempt's is the task's (the enqueue's trace); a retry's
 * is a trace of its own, linked to the enqueue and to the attempt before it (README "OpenTelemetry").
 */
export function AttemptsTimeline({
  history,
  traceUrl = null,
  taskTraceId = null,
}: {
  history: AttemptJson[];
  traceUrl?: string | null;
  taskTraceId?: string | null;
}) {
  const sorted = [...history].sort((a, b) => a.attempt - b.attempt || a.id - b.id);
  return (
    <ol className="relative space-y-5 px-4 py-4" data-testid="attempts">
      {sorted.map((a, i) => (
        <li key={a.id} className="relative pl-7" data-testid="attempt" data-attempt={a.attempt} data-outcome={a.outcome}>
          {i < sorted.length - 1 && <span className="absolute left-[5px] top-4 -bottom-5 w-px bg-slate-200" aria-hidden />}
          <span
            className={cx(
              'absolute left-0 top-1 size-3 rounded-full ring-4',
              DOT[OUTCOME_TONE[a.outcome] ?? 'gray'],
              a.outcome === 'running' && 'animate-pulse',
            )}
            aria-hidden
          />
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="text-sm font-semibold text-slate-900">Attempt {a.attempt}</span>
            <OutcomeBadge outcome={a.outcome} />
            {a.abandonReason && ABANDON_TEXT[a.abandonReason] && (
              <span className="text-xs font-medium text-violet-700" data-testid="attempt-abandon-reason" data-reason={a.abandonReason}>
                {ABANDON_TEXT[a.abandonReason]!.long}
              </span>
            )}
            <span className="text-xs text-slate-500">
              <RelativeTime iso={a.startedAt} /> · <span title={a.startedAt ?? ''}>{formatLocal(a.startedAt)}</span>
            </span>
            <span className="text-xs text-slate-500">
              took <Elapsed from={a.startedAt} to={a.endedAt} className="font-mono text-xs text-slate-700" />
            </span>
          </div>
          <div className="mt-1 font-mono text-xs text-slate-500">
            worker <span className="text-slate-700">{a.workerId ?? '—'}</span> · session{' '}
            <span className="text-slate-700">{a.session ?? '—'}</span>
            {a.tokenNo !== null && (
              <>
                {' '}
                · token <span className="text-slate-700">{a.tokenNo}</span>
              </>
            )}
            {a.traceId && (
              <>
                {' '}
                · trace{a.traceId === taskTraceId ? '' : ' (its own)'}{' '}
                <TraceLink traceId={a.traceId} url={traceUrl} testId="attempt-trace" inline />
              </>
            )}
          </div>
          {a.errorMessage && (
            <div className="mt-2 rounded-md border border-rose-100 bg-rose-50/60 px-3 py-2" data-testid="attempt-error">
              <p className="break-words text-sm text-rose-800">
                {a.errorNumber !== null && (
                  <span className="mr-1.5 rounded bg-rose-100 px-1 font-mono text-xs text-rose-700">#{a.errorNumber}</span>
                )}
                {a.errorMessage}
              </p>
              {a.errorDetail && (
                <details className="mt-1">
                  <summary className="cursor-pointer text-xs text-rose-600 hover:underline">
                    {a.outcome === 'abandoned' ? 'last heartbeat' : 'stack trace'}
                  </summary>
                  <pre
                    className="mt-1 max-h-72 overflow-auto rounded bg-slate-900 p-2 font-mono text-[11px] leading-relaxed text-slate-100"
                    data-testid="attempt-stack"
                  >
                    {a.errorDetail}
                  </pre>
                </details>
              )}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}
