// Activity over time and failures: per-second metrics, abandoned attempts, failure groups and their filters.
import type { AbandonReason } from './tasks';

/** Attempts abandoned by the rescue since a time, by queue and reason (`unknown`: before reasons were kept). */
export interface AbandonedCount {
  queue: string;
  reason: AbandonReason | 'unknown';
  n: number;
}

/** One second of activity, kept as an aggregate while work is done (never recomputed from the log). */
export interface MetricPoint {
  at: Date;
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  /** sum and max of enqueue(or run-after)-to-start latency of the attempts started in this second */
  latencySumMs: number;
  latencyMaxMs: number;
  /** pending tasks at the end of this second (sampled) */
  depth: number | null;
}

export interface FailureGroup {
  message: string;
  queue: string;
  command: string;
  count: number;
  lastAt: Date;
  sampleToken: string;
}

export interface FailureFilter {
  queue?: string;
  /** exact last error message */
  message?: string;
  /** substring of command or error message */
  q?: string;
  /** failure fingerprint (lib/engine/fingerprint.ts) */
  fingerprint?: string;
  /** exact command */
  command?: string;
}

/** Dead tasks of one failure fingerprint, command and queue (Failed & poison). `message` is the newest one's. */
export interface FingerprintGroup extends FailureGroup {
  fingerprint: string;
  errorNumber: number | null;
  firstAt: Date;
  /** dead tasks per hour over the last 24 hours (by finish time), oldest first: 24 numbers */
  trend: number[];
}

/** A page of fingerprint groups, largest first; `cursor` is the `nextCursor` of the page before. */
export interface FailureGroupQuery extends FailureFilter {
  cursor?: number;
  limit?: number;
}
