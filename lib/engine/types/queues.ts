// Queues: settings, counts, the operator's changes, concurrency-limit tokens (Taskling-style) and why pending
// tasks wait.

export interface QueueSettings {
  name: string;
  concurrencyLimit: number | null;
  paused: boolean;
  maxAttempts: number;
  timeoutMs: number | null;
  /** base of the exponential backoff */
  backoffMs: number;
  /** running tasks of each concurrency key, at most (null = no per-key cap; the queue's limit still holds) */
  perKeyLimit: number | null;
  /** a JSON path (`$.customerId`) a task without a concurrencyKey gets its key from, out of its payload */
  keyFrom: string | null;
  /** at most `limit` attempts start in any window of `periodSeconds` (null = no rate limit) */
  rateLimit: RateLimit | null;
}

/** A queue's rate limit: at most `limit` attempt starts in any window of `periodSeconds`. */
export interface RateLimit {
  limit: number;
  periodSeconds: number;
  /** true: the window is kept per concurrency key (tasks with no key share one window) */
  perKey: boolean;
}

/** A rate-limited queue's window now: starts in the last `periodSeconds` (per key: of its busiest key). */
export interface RateUsage {
  limit: number;
  periodSeconds: number;
  perKey: boolean;
  /** attempts started in the window (per key: the busiest key's) */
  started: number;
  /** when the next start is allowed, when the window is full (null: a start is allowed now) */
  nextAt: Date | null;
}

/** One concurrency key of a queue: its running (live lease) and pending tasks. */
export interface KeyUsage {
  key: string;
  running: number;
  pending: number;
}

export interface QueueCounts {
  queue: string;
  /** tasks with an unfinished parent (never claimed until their parents succeeded) */
  waiting: number;
  pending: number;
  /** claimed ahead by a pool, not started yet (never on SQL Server) */
  claimed: number;
  running: number;
  succeeded: number;
  dead: number;
  cancelled: number;
}

export interface QueuePatch {
  /** null = unlimited; 1 = singleton */
  concurrencyLimit?: number | null;
  paused?: boolean;
  /** null = no per-key cap */
  perKeyLimit?: number | null;
  /** null = no derived key */
  keyFrom?: string | null;
  /** null = no rate limit */
  rateLimit?: RateLimit | null;
}

export interface QueueView extends QueueSettings {
  pending: number;
  running: number;
  /** tokens granted right now (limited queues only) */
  granted: number;
  /** the rate window now (rate-limited queues only) */
  rate: RateUsage | null;
}

/** The queue settings an operator changes live, each recorded as a QueueChange (rateLimit as `60/60s`, `60/60s per key`, or `none`). */
export type QueueChangeField = 'concurrencyLimit' | 'paused' | 'perKeyLimit' | 'keyFrom' | 'rateLimit';

export interface QueueChange {
  id: number;
  queue: string;
  at: Date;
  /** who or where from: `cli`, `api`, `dashboard`, a user name */
  changedBy: string;
  field: QueueChangeField;
  oldValue: string;
  newValue: string;
}

export interface TokenView {
  queue: string;
  tokenNo: number;
  status: 'free' | 'granted';
  /** the grantee attempt */
  token: string | null;
  attempt: number | null;
  workerId: string | null;
  session: number | null;
  grantedAt: Date | null;
  /** granted to an attempt that no longer owns its task, or whose worker stopped heartbeating */
  holderDead: boolean;
}

/**
 * A queue's pending tasks split by why they wait: `ready` (due now), `scheduled` (a run-at in the future,
 * never tried), `retrying` (waiting out a backoff after a failed attempt); with the oldest ready task's
 * enqueue time and the next future run-at.
 */
export interface PendingBreakdown {
  queue: string;
  ready: number;
  scheduled: number;
  retrying: number;
  /** created_at of the oldest ready task (its wait), null when none is ready */
  oldestReadyAt: Date | null;
  /** the earliest run-at among scheduled and retrying tasks */
  nextRunAt: Date | null;
}
