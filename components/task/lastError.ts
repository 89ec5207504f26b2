// Which attempt a task's "last error" belongs to, and whether it is still the task's state: a task
// that succeeded after a failed attempt keeps that attempt's error on its row, which must read as
// history ("attempt 2 of 5 failed: …; attempt 3 succeeded"), not as the task's current error.
import type { StatusJson } from '../api';
import { abandonedPhrase } from './abandon';

export interface LastErrorContext {
  /** the attempt that recorded the error, when the log still has it */
  attempt: number | null;
  /** how that attempt ended: failed, timed_out, abandoned, cancelled */
  outcome: string | null;
  /** a later attempt that succeeded (the error is history), or null */
  succeededAttempt: number | null;
  /** the error describes where the task stands now (dead, waiting to retry, cancelled) */
  current: boolean;
  /** e.g. "Attempt 2 of 5 failed; attempt 3 succeeded" */
  label: string;
}

const ENDED: Record<string, string> = {
  failed: 'failed',
  timed_out: 'timed out',
  abandoned: 'was abandoned (its lease expired)',
  cancelled: 'was cancelled',
};

export function lastErrorContext(t: Pick<StatusJson, 'status' | 'maxAttempts' | 'lastError' | 'history'>): LastErrorContext | null {
  if (!t.lastError) return null;
  const sorted = [...t.history].sort((a, b) => a.attempt - b.attempt);
  const ended = sorted.filter((a) => a.outcome !== 'succeeded' && a.outcome !== 'running' && a.errorMessage !== null);
  // the attempt whose message the task row kept (the latest such), else the latest that ended in error
  const own = [...ended].reverse().find((a) => a.errorMessage === t.lastError!.message) ?? ended.at(-1) ?? null;
  const success = sorted.find((a) => a.outcome === 'succeeded' && (own === null || a.attempt > own.attempt)) ?? null;
  const current = t.status !== 'succeeded' && success === null;
  const endedAs = own?.outcome === 'abandoned' ? abandonedPhrase(own.abandonReason) : own ? (ENDED[own.outcome] ?? own.outcome) : '';
  const head = own ? `Attempt ${own.attempt} of ${t.maxAttempts} ${endedAs}` : null;
  const label = success
    ? `${head ?? 'An earlier attempt failed'}; attempt ${success.attempt} succeeded`
    : head
      ? t.status === 'pending'
        ? `${head}; the next attempt is due`
        : head
      : 'Error';
  return { attempt: own?.attempt ?? null, outcome: own?.outcome ?? null, succeededAttempt: success?.attempt ?? null, current, label };
}
