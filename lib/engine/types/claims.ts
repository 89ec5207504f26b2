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
  /**
   * Claim up to `count` tasks more than the slots, ahead, for the pool's local queue (a store whose
   * `capabilities.prefetch` is above 0): each is `claimed` by `claimer` — a lease, and what a running task holds
   * for the claim rules, but no attempt and no ExecutionLog row until a slot starts it (AttemptResult.start).
   * Never a task of a rate-limited queue (its rate slot would be dated before its start).
   */
  ahead?: { count: number; claimer: WorkerSlot };
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
  /** the slot that runs it; for a task claimed ahead (`ahead`), its claimer until a slot starts it */
  workerId: string;
  session: number;
  createdAt: Date;
  runAfter: Date;
  /** when its attempt started (the claim's time for a slot's own claim); for a task claimed ahead, when it was claimed */
  startedAt: Date;
  /**
   * claimed ahead (ClaimOptions.ahead): `claimed` in the store, not started — `attempt` is the attempt it will be
   * (its attempts + 1); its start is recorded when a slot starts it (AttemptResult.start)
   */
  ahead?: boolean;
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
  | { kind: 'cancelled'; error: ErrorInfo | null }
  /**
   * Back to pending, due as it was, with nothing counted: a task claimed ahead that no slot started (no attempt
   * was logged), or an attempt started by its claim whose lease was too short to run (its attempt is undone: the
   * attempt count back, its ExecutionLog row removed). Its token and key room are released.
   */
  | { kind: 'given_back'; reason: string }
  /**
   * a durable handler slept or waits for an event (types/durable.ts): the attempt ends `suspended`, the task is
   * `waiting` until `until` (null: no timeout) or its event, and `step` (status sleeping / waiting) is recorded
   */
  | { kind: 'suspended'; step: StepWrite; until: Date | null };

/** A claimed task's attempt still running: its start, not yet recorded, is recorded (claimed → running). */
export interface StillRunning {
  kind: 'started';
}

/** An attempt whose start is not recorded yet (a task claimed ahead): its output waits for it. */
export interface UnrecordedStart {
  /** recorded (or refused): its output may be written */
  readonly done: boolean;
  /** the output is waiting: record the start now */
  hurry(): void;
  /** until done, or `ms` have passed */
  wait(ms: number): Promise<void>;
}

/** The start of an attempt of a task claimed ahead, recorded with its result (or alone: StillRunning). */
export interface AttemptStart {
  /** when the slot started it (the pool's clock; the store keeps it no later than its own now) */
  at: Date;
  /** the worker that claimed it (the claim's fence: a claimed task is renewed and started on its claimer) */
  claimer: string;
  /** the session of the slot that runs it */
  session: number;
  /** when the task was due (ClaimedTask.runAfter): enqueue → start latency */
  due: Date;
}

/**
 * What a worker reports about an attempt: how it ended (a Settlement), or that a claimed task's attempt runs
 * (StillRunning, with its `start`). Fenced on (task, worker, attempt) with a live lease — with `start`, on the
 * claim instead: (task, `start.claimer`, status claimed, attempts = attempt − 1); a `given_back` on either.
 */
export interface AttemptResult {
  taskId: number;
  /** the slot that ran it (a given-back task not started: its claimer) */
  workerId: string;
  attempt: number;
  settlement: Settlement | StillRunning;
  /** a task claimed ahead whose start is not recorded yet: recorded with this result, in its transaction */
  start?: AttemptStart;
  /** the traceparent of the attempt's span (lib/engine/tracing.ts), kept with the attempt; absent: not traced */
  trace?: string;
}

export interface RescueResult {
  /** abandoned attempts put back to pending */
  retried: number;
  /** abandoned attempts with no attempts left */
  dead: number;
  /** tasks claimed ahead whose claim lapsed, back to pending with nothing counted (absent: none, or a store that never claims ahead) */
  released?: number;
}
