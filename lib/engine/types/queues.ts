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
}

export interface QueueCounts {
  queue: string;
  pending: number;
  running: number;
  succeeded: number;
  dead: number;
  cancelled: number;
}

export interface QueuePatch {
  /** null = unlimited; 1 = singleton */
  concurrencyLimit?: number | null;
  paused?: boolean;
}

export interface QueueView extends QueueSettings {
  pending: number;
  running: number;
  /** tokens granted right now (limited queues only) */
  granted: number;
}

export interface QueueChange {
  id: number;
  queue: string;
  at: Date;
  /** who or where from: `cli`, `api`, `dashboard`, a user name */
  changedBy: string;
  field: 'concurrencyLimit' | 'paused';
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
