// Claiming and settling: the worker slot a claim runs on, the task it gets, how its attempt ends, the rescue.
import type { TaskKind, ErrorInfo } from './tasks';
import type { ParentResult } from './flows';

/** One worker = one reader of the queue with its own session (SQL Server: its own connection / SPID). */
export interface WorkerSlot {
  workerId: string;
  session: number;
}

export interface ClaimOptions {
  leaseMs: number;
  /** only these queues (default: all) */
  queues?: string[];
}

export interface ClaimedTask {
  id: number;
  token: string;
  queue: string;
  kind: TaskKind;
  command: string;
  payload: unknown;
  priority: number;
  /** the task's concurrency key (null: none) */
  concurrencyKey: string | null;
  /** 1-based number of this attempt */
  attempt: number;
  maxAttempts: number;
  timeoutMs: number | null;
  /** the queue's backoff base, for the retry policy */
  backoffMs: number;
  workerId: string;
  session: number;
  createdAt: Date;
  runAfter: Date;
  startedAt: Date;
  /**
   * the tasks it depends on with their results, read by the claim (empty: none) — a handler's `ctx.parents`,
   * a sql/procedure task's `@Parents`
   */
  parents: ParentResult[];
  /** the W3C trace context stored with the task at enqueue (absent or null: none) */
  traceParent?: string | null;
  traceState?: string | null;
  /** the traceparent of the span of the last traced attempt before this one (absent or null: none) */
  previousTrace?: string | null;
  /** the traceparents of the parents' last attempts (read with `parents`; absent: none) */
  parentTraces?: string[];
}

/** What happens to a task when its attempt ends. The engine decides; the store applies. */
export type Settlement =
  | { kind: 'succeeded'; result: unknown }
  | { kind: 'retry'; outcome: 'failed' | 'timed_out' | 'abandoned'; error: ErrorInfo; runAfter: Date }
  | { kind: 'dead'; outcome: 'failed' | 'timed_out' | 'abandoned'; error: ErrorInfo }
  | { kind: 'cancelled'; error: ErrorInfo | null };

export interface AttemptResult {
  taskId: number;
  workerId: string;
  attempt: number;
  settlement: Settlement;
  /**
   * when the worker began running it, sent for a task claimed ahead (it waited for its worker's task before it;
   * the pool's clock — SQLite's own). The store keeps it only between the claim's time and the settlement's;
   * absent: the claim's time is the start.
   */
  startedAt?: Date;
  /** the traceparent of the attempt's span (lib/engine/tracing.ts), kept with the attempt; absent: not traced */
  trace?: string;
}

export interface RescueResult {
  /** abandoned attempts put back to pending */
  retried: number;
  /** abandoned attempts with no attempts left */
  dead: number;
}
