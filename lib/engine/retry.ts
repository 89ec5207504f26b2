// Retry policy: exponential backoff with jitter, capped; the queue supplies the base.
import type { ErrorInfo, Settlement } from './types';

export const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** Delay before attempt `attempt + 1`: base·2^(attempt−1), ±25 % jitter, at most an hour. */
export function backoffDelay(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exp = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  return Math.round(Math.min(MAX_BACKOFF_MS, exp * (0.75 + 0.5 * random())));
}

/** What a failed attempt leads to: another attempt later, or dead when out of attempts or not retryable. */
export function failureSettlement(
  outcome: 'failed' | 'timed_out' | 'abandoned',
  error: ErrorInfo,
  attempt: number,
  maxAttempts: number,
  backoffMs: number,
  retryable = true,
  now = Date.now(),
): Settlement {
  if (!retryable || attempt >= maxAttempts) return { kind: 'dead', outcome, error };
  return { kind: 'retry', outcome, error, runAfter: new Date(now + backoffDelay(attempt, backoffMs)) };
}

/** Error → the number / message / detail recorded in ExecutionLog. */
export function errorInfo(err: unknown): ErrorInfo {
  if (err instanceof Error) {
    const n = (err as { number?: unknown }).number;
    return {
      number: typeof n === 'number' && Number.isFinite(n) ? n : null,
      message: (err.message || err.name || 'Error').slice(0, 4000),
      detail: err.stack ? err.stack.slice(0, 16000) : null,
    };
  }
  return { number: null, message: String(err).slice(0, 4000), detail: null };
}
