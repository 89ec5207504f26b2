// Claiming and settling: the worker slot a claim runs on, the task it gets, how its attempt ends, the rescue.
import type { TaskKind, ErrorInfo } from './tasks';
import type { ParentResult } from './flows';
import type { StepWrite } from './durable';

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
}

/** What happens to a task when its attempt ends. The engine decides; the store applies. */
export type Settlement =
  | { kind: 'succeeded'; result: unknown }
  | { kind: 'retry'; outcome: 'failed' | 'timed_out' | 'abandoned'; error: ErrorInfo; runAfter: Date }
  | { kind: 'dead'; outcome: 'failed' | 'timed_out' | 'abandoned'; error: ErrorInfo }
  | { kind: 'cancelled'; error: ErrorInfo | null }
  /**
   * a durable handler slept or waits for an event (types/durable.ts): the attempt ends `suspended`, the task is
   * `waiting` until `until` (null: no timeout) or its event, and `step` (status sleeping / waiting) is recorded
   */
  | { kind: 'suspended'; step: StepWrite; until: Date | null };

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
}

export interface RescueResult {
  /** abandoned attempts put back to pending */
  retried: number;
  /** abandoned attempts with no attempts left */
  dead: number;
}
