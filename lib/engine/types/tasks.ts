// Tasks and their attempts: statuses, outcomes, kinds, what an enqueue asks and what a task looks like.

// Dependencies (the rules: types/flows.ts)
/** What a child does when a parent goes dead or is cancelled. */
export const PARENT_FAILURE_POLICIES = ['cancel', 'run', 'wait'] as const;
export type ParentFailurePolicy = (typeof PARENT_FAILURE_POLICIES)[number];

/** One validated dependency of a task being enqueued: an existing task by token. */
export interface Dependency {
  token: string;
  onParentFailure: ParentFailurePolicy;
}

/** A parent or child of a task, on the task's page. */
export interface TaskLink {
  token: string;
  nodeId: string | null;
  command: string;
  status: TaskStatus;
  onParentFailure: ParentFailurePolicy;
}

/**
 * `waiting`: never claimed until something happens — a parent succeeds (types/flows.ts), or, for a durable handler
 * suspended on a sleep or an event (`suspended` says which: types/durable.ts), its time comes or the event arrives.
 * `claimed`: claimed ahead by a pool, waiting in its local queue for a free slot — not started: no attempt counted,
 * no ExecutionLog row; it holds what a running task holds (a lease, the queue's token, its key's and batch's room,
 * its dedup key) until a slot starts it (→ running) or the pool gives it back (→ pending).
 */
export const TASK_STATUSES = ['waiting', 'pending', 'claimed', 'running', 'succeeded', 'dead', 'cancelled'] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TERMINAL_STATUSES: readonly TaskStatus[] = ['succeeded', 'dead', 'cancelled'];

/** Not finished: what holds a dedup key, keeps a batch or a flow open, and what a cancel stops. */
export const OPEN_STATUSES: readonly TaskStatus[] = ['waiting', 'pending', 'claimed', 'running'];

/** `suspended`: a durable handler's attempt that ended in a sleep or a wait for an event (not a failure). */
/** Why a `waiting` task is suspended by its durable handler (Tasks.suspended): a sleep, or a wait for an event. */
export const SUSPENSIONS = ['sleep', 'event'] as const;
export type Suspension = (typeof SUSPENSIONS)[number];

export const OUTCOMES = ['running', 'succeeded', 'failed', 'abandoned', 'cancelled', 'timed_out', 'suspended'] as const;

/**
 * Why the rescue abandoned an attempt whose lease expired: `lease_lost` — its worker was heard from at or
 * after the lease's end (alive, but its heartbeats came too late to renew it); `worker_lost` — it was not
 * (crashed, killed or cut off). Recorded at the rescue (both stores: the worker's heartbeat row then).
 */
export const ABANDON_REASONS = ['lease_lost', 'worker_lost'] as const;

export type AbandonReason = (typeof ABANDON_REASONS)[number];

export type Outcome = (typeof OUTCOMES)[number];

export const TASK_KINDS = ['handler', 'sql', 'procedure'] as const;

export type TaskKind = (typeof TASK_KINDS)[number];

/** A validated request to create one task (see validation.ts for the rules). */
export interface EnqueueInput {
  kind: TaskKind;
  /** handler name, SQL text or procedure name */
  command: string;
  /** JSON-serialisable payload / parameters; null when absent */
  payload?: unknown;
  queue?: string;
  /** higher runs first; default 0 */
  priority?: number;
  /** not before this time; default now */
  runAt?: Date;
  /** default: the queue's max attempts */
  maxAttempts?: number;
  /** default: the queue's timeout (null = none) */
  timeoutMs?: number | null;
  /** unique among non-terminal tasks; a duplicate returns the existing token */
  dedupKey?: string | null;
  /**
   * the task's concurrency key (≤ 200 characters, binary-compared): its queue's perKeyLimit caps the running
   * tasks of each key, keys take turns, and a per-key rate limit keeps a window per key. Absent: derived from
   * the payload by the queue's `keyFrom`, if it has one.
   */
  concurrencyKey?: string | null;
  /** free text: who enqueued (cli, api, dashboard, a user name) */
  caller?: string | null;
  /** a batch created with createBatch, and the stage (0-based) within it */
  batchId?: number | null;
  stage?: number | null;
  /**
   * existing tasks this one runs after (≤ MAX_PARENTS, distinct, none in a batch): it is `waiting` until each
   * has succeeded (types/flows.ts has the rules). Not with batchId.
   */
  dependsOn?: Dependency[];
  /**
   * the W3C trace context the task carries (lib/engine/tracing.ts): its attempts' spans continue that trace.
   * Set by the front door from the active span (or a caller's `traceparent`); absent: none, nothing stored.
   */
  trace?: TraceContext | null;
}

/** A W3C trace context as stored with a task: `traceparent` (00-<trace id>-<span id>-<flags>) and `tracestate`. */
export interface TraceContext {
  traceparent: string;
  tracestate: string | null;
}

export interface EnqueueResult {
  token: string;
  /** false when dedupKey matched an existing non-terminal task */
  created: boolean;
}

export interface ErrorInfo {
  number: number | null;
  message: string;
  /** stack trace or driver detail */
  detail: string | null;
}

export interface AttemptView {
  id: number;
  token: string;
  queue: string;
  kind: TaskKind;
  command: string;
  attempt: number;
  workerId: string | null;
  session: number | null;
  /** the concurrency token held by this attempt (limited queues) */
  tokenNo: number | null;
  batchId: number | null;
  stage: number | null;
  startedAt: Date;
  endedAt: Date | null;
  outcome: Outcome;
  errorNumber: number | null;
  errorMessage: string | null;
  errorDetail: string | null;
  /** an attempt abandoned by the rescue of its expired lease: why (null otherwise, and for older attempts) */
  abandonReason: AbandonReason | null;
  /** the trace id of this attempt's span, when it was traced (a retry's attempt is a trace of its own) */
  traceId?: string | null;
  /** the task's max attempts now (in the attempt list; absent in a task's own history) */
  maxAttempts?: number;
  /** this attempt made its task dead: the task is dead and this was its last attempt (attempt list) */
  final?: boolean;
}

export interface TaskView {
  /** 0: not in the tasks table yet (SQLite: a task enqueued alone, still in the intake; read while another process writes) */
  id: number;
  token: string;
  status: TaskStatus;
  queue: string;
  kind: TaskKind;
  command: string;
  payload: unknown;
  priority: number;
  attempts: number;
  maxAttempts: number;
  timeoutMs: number | null;
  dedupKey: string | null;
  /** given at enqueue or derived from the payload by the queue's keyFrom; null: none */
  concurrencyKey: string | null;
  caller: string | null;
  batchId: number | null;
  stage: number | null;
  runAfter: Date;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  leaseUntil: Date | null;
  workerId: string | null;
  cancelRequested: boolean;
  result: unknown;
  lastError: ErrorInfo | null;
  /** set on a task a schedule fired */
  schedule: TaskSchedule | null;
  /** the flow it belongs to (created by rp.flow, or enqueued with dependsOn on a flow's task), and its node id */
  flowId: number | null;
  flowNode: string | null;
  /** how many tasks it depends on, and of those how many have not yet succeeded (or been let through by `run`) */
  parentCount: number;
  parentsLeft: number;
  /** a waiting task suspended by its durable handler: on a sleep or an event (types/durable.ts); null otherwise */
  suspended: Suspension | null;
  /** attempts that ended suspended (not failures: max attempts bounds attempts − suspensions) */
  suspensions: number;
  /** the trace id the task was enqueued in (its first attempt continues that trace); null: none */
  traceId?: string | null;
}

export interface TaskDetail extends TaskView {
  history: AttemptView[];
  /** the tasks it depends on and those that depend on it (each up to MAX_LINKS_SHOWN, by task id), with their states */
  parents: TaskLink[];
  children: TaskLink[];
  /** the total number of children (more than listed when over MAX_LINKS_SHOWN) */
  childCount: number;
}

/** The schedule a task was fired by. */
export interface TaskSchedule {
  name: string;
  /** the tick; null for a manual run */
  fireAt: Date | null;
}
