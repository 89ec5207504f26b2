// Dialect-free domain types shared by the engine, every Store and every surface (CLI, HTTP, UI).

export const TASK_STATUSES = ['pending', 'running', 'succeeded', 'dead', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['succeeded', 'dead', 'cancelled'];

export const OUTCOMES = ['running', 'succeeded', 'failed', 'abandoned', 'cancelled', 'timed_out'] as const;

/**
 * Why the rescue abandoned an attempt whose lease expired: `lease_lost` — its worker was heard from at or
 * after the lease's end (alive, but its heartbeats came too late to renew it); `worker_lost` — it was not
 * (crashed, killed or cut off). Recorded at the rescue (both stores: the worker's heartbeat row then).
 */
export const ABANDON_REASONS = ['lease_lost', 'worker_lost'] as const;
export type AbandonReason = (typeof ABANDON_REASONS)[number];

/** Attempts abandoned by the rescue since a time, by queue and reason (`unknown`: before reasons were kept). */
export interface AbandonedCount {
  queue: string;
  reason: AbandonReason | 'unknown';
  n: number;
}
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
  /** free text: who enqueued (cli, api, dashboard, a user name) */
  caller?: string | null;
  /** a batch created with createBatch, and the stage (0-based) within it */
  batchId?: number | null;
  stage?: number | null;
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
  /** the task's max attempts now (in the attempt list; absent in a task's own history) */
  maxAttempts?: number;
  /** this attempt made its task dead: the task is dead and this was its last attempt (attempt list) */
  final?: boolean;
}

export interface TaskView {
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
}

export interface TaskDetail extends TaskView {
  history: AttemptView[];
}

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
}

export interface HeartbeatInput {
  /** every live worker of this process */
  workerIds: string[];
  /** the attempts these workers are running; their leases are renewed (fenced on task, worker, attempt) */
  running: { taskId: number; workerId: string; attempt: number }[];
  leaseMs: number;
}

export interface HeartbeatResult {
  /** running tasks still owned by these workers (a task missing here lost its lease) */
  owned: number[];
  /** owned tasks an operator asked to cancel */
  cancelRequested: number[];
  /**
   * How long the database itself worked on the heartbeat (SQL Server: measured by the batch; SQLite: from
   * holding the write lock to done), when the store knows. The rest of its time was spent getting there:
   * waiting for a connection or the write lock, the network, compiling.
   */
  serverMs?: number;
}

export interface WorkerRegistration {
  workerId: string;
  host: string;
  pid: number;
  /** e.g. `web` for the dashboard's in-process pool, `cli` for `readpast worker` */
  role: string;
  /** the only queues it claims from (`--queues`); null or absent: every queue */
  queues?: readonly string[] | null;
}

export interface WorkerSession {
  session: number;
  loginTime: Date;
}

export type WorkerState = 'running' | 'stopping' | 'stopped' | 'lost';

export interface WorkerView {
  workerId: string;
  host: string;
  pid: number;
  role: string;
  session: number;
  loginTime: Date;
  startedAt: Date;
  heartbeatAt: Date;
  /** as recorded; a 'running' worker whose heartbeat is stale is reported as 'lost' */
  state: WorkerState;
  currentTask: { token: string; command: string; queue: string; startedAt: Date } | null;
  /** the only queues it claims from; null: every queue */
  queues: readonly string[] | null;
}

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

export interface RescueResult {
  /** abandoned attempts put back to pending */
  retried: number;
  /** abandoned attempts with no attempts left */
  dead: number;
}

export interface PruneResult {
  tasks: number;
  attempts: number;
}

export interface SqlRunResult {
  rowsAffected: number;
  /** first rows of the last result set, capped */
  rows: Record<string, unknown>[];
}

/** ExecutionStatus: an attempt running right now. */
export interface RunningView {
  attemptId: number;
  token: string;
  queue: string;
  kind: TaskKind;
  command: string;
  attempt: number;
  maxAttempts: number;
  workerId: string;
  session: number | null;
  tokenNo: number | null;
  batchId: number | null;
  stage: number | null;
  startedAt: Date;
  leaseUntil: Date | null;
  cancelRequested: boolean;
  /** SQL Server only, and only where the login can see the DMVs */
  live?: LiveRequestState | null;
  /** the first characters of the task's payload as JSON text (`…` when cut); null without a payload */
  payloadPreview?: string | null;
  /** the latest progress the attempt reported (ctx.progress), null when none */
  progress?: ProgressReport | null;
}

export interface TaskFilter {
  status?: TaskStatus;
  queue?: string;
  batchId?: number;
  stage?: number;
  /** substring of command, dedup key or last error message */
  q?: string;
  /** tasks with an id below this (keyset; newest first) */
  cursor?: number;
  limit?: number;
  /** pending tasks only: due now, a future run-at never tried, or waiting out a backoff (PendingBreakdown) */
  sub?: PendingSub;
  /** exact command (handler name, procedure name, SQL text) */
  command?: string;
  /** priority within [priorityMin, priorityMax] */
  priorityMin?: number;
  priorityMax?: number;
  /** time range: finished_at for succeeded, dead and cancelled tasks, created_at otherwise (no status: created_at) */
  from?: Date;
  to?: Date;
  /** a value inside the JSON payload */
  payload?: PayloadFilter;
  /** rows examined at most for filters no index answers (default TASK_SCAN_LIMIT; not taken from a query string) */
  scanLimit?: number;
}

export const PENDING_SUBS = ['ready', 'scheduled', 'retrying'] as const;

/** A worker's queues as the stores keep them: a JSON array of names, or null (none given: every queue). */
export const workerQueuesJson = (queues: readonly string[] | null | undefined): string | null =>
  queues?.length ? JSON.stringify(queues) : null;

/** A worker's recorded queues (workerQueuesJson's text), or null: every queue. */
export function workerQueuesOf(text: string | null | undefined): string[] | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.length && v.every((q) => typeof q === 'string') ? (v as string[]) : null;
  } catch {
    return null;
  }
}

/** Whether a worker that claims from `queues` (null: every queue) serves `queue`. */
export const servesQueue = (queues: readonly string[] | null, queue: string) => queues === null || queues.includes(queue);
export type PendingSub = (typeof PENDING_SUBS)[number];

/**
 * `path` is a JSON path `$.a.b[0]` (letters, digits, `_`, dots and `[n]` only: checked by the parser in
 * lib/api/task-query.ts and again by the stores). `eq`: the scalar at the path, as text (`true`, `42`,
 * `abc`), equals `value`; `contains`: it contains `value` (case as the database compares text).
 */
export interface PayloadFilter {
  path: string;
  op: 'eq' | 'contains';
  value: string;
}

/** A JSON path the stores accept: `$`, then `.name` or `[n]` steps. */
export const JSON_PATH = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d{1,6}\])+$/;

/** Rows a filtered task page examines at most (newest first) before it answers `partial`. */
export const TASK_SCAN_LIMIT = 50_000;

export interface AttemptFilter {
  outcome?: Outcome;
  queue?: string;
  batchId?: number;
  /** substring of command or error message */
  q?: string;
  from?: Date;
  to?: Date;
  /** attempts with an id below this (keyset; newest first) */
  cursor?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** pass as `cursor` for the next page; null at the end */
  nextCursor: number | null;
  /**
   * Task pages with filters no index answers: true when the page stopped after examining `scanned` rows
   * (TASK_SCAN_LIMIT) with fewer matches than asked; `nextCursor` then continues the scan further back.
   */
  partial?: boolean;
  scanned?: number;
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

/** What an edit may change on a task that is not running (validated like enqueue). */
export interface TaskPatch {
  payload?: unknown;
  queue?: string;
  priority?: number;
  runAt?: Date;
  maxAttempts?: number;
}

export type EditTaskResult =
  | { result: 'edited' | 'retried'; before: TaskView; after: TaskView }
  | { result: 'not_found' | 'conflict' | 'running' };

/** What a bulk command does to each task it is given. */
export type BulkAction = 'retry' | 'cancel' | 'delete' | 'run_now' | 'priority';

/** How a bulk command ended, per task: done, skipped (its state does not allow it), or not found. */
export interface BulkOutcome {
  done: number;
  skipped: number;
  missing: number;
  /** of `skipped` (retry): tasks whose dedup key an unfinished task holds, or a newer task of the selection took */
  dedupKeyHeld: number;
}

/**
 * What `retryFailed` did. Of several dead tasks sharing a dedup key only the newest comes back (a key is
 * held by one unfinished task at most); the others, and every task whose key an unfinished task already
 * holds, stay dead and are counted in `skipped.dedupKeyHeld`.
 */
export interface RetryFailedResult {
  retried: number;
  skipped: { dedupKeyHeld: number };
}

/** A stored procedure's parameter, as the catalog describes it (SQL Server). */
export interface ProcedureParameter {
  /** without the leading @ */
  name: string;
  /** SQL type name, e.g. `decimal`, `nvarchar`, a table type's name */
  type: string;
  /** characters for (n)char/(n)varchar, bytes for binary types; -1 = max; null where not applicable */
  maxLength: number | null;
  precision: number | null;
  scale: number | null;
  isOutput: boolean;
  isTable: boolean;
}

/** Request state from the server's own views (SQL Server DMVs), where the login may see them. */
export interface LiveRequestState {
  status: string | null;
  command: string | null;
  waitType: string | null;
  waitTimeMs: number | null;
  blockingSession: number | null;
  cpuMs: number | null;
  percentComplete: number | null;
  openTransactions: number | null;
}

// ---- concurrency limits (Taskling-style tokens) ---------------------------------------------

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

// ---- batches and stages (the seeds' scheduler handles) ---------------------------------------

export type BatchStatus = 'open' | 'released' | 'completed' | 'aborted' | 'cancelled';
export type OnFailure = 'continue' | 'abort';

export interface BatchInput {
  caller?: string | null;
  /** at most this many of the batch's tasks run at once (null = no cap) */
  maxParallel?: number | null;
  onFailure?: OnFailure;
}

export interface StageCounts {
  stage: number;
  total: number;
  pending: number;
  running: number;
  succeeded: number;
  dead: number;
  cancelled: number;
  firstStartedAt: Date | null;
  lastEndedAt: Date | null;
}

export interface BatchView {
  id: number;
  caller: string | null;
  maxParallel: number | null;
  onFailure: OnFailure;
  status: BatchStatus;
  /** the lowest stage with unfinished tasks (null when none) */
  activeStage: number | null;
  createdAt: Date;
  releasedAt: Date | null;
  completedAt: Date | null;
  stages: StageCounts[];
}

/** Whether live session state (SQL Server DMVs) can be read, and if not, why. */
export interface LiveStatus {
  available: boolean;
  reason: string | null;
  /** SQL Server: whether this login may KILL a task's session, and if not, what it lacks */
  canKill?: boolean;
  killRefusal?: string | null;
}

/**
 * One line of `readpast doctor`: something this database, login or machine has or lacks. `ok` is
 * true (fine), false (missing or failing) or null (informational, or skipped because an earlier
 * check failed). A check the configuration `needed` that is not ok makes the doctor fail.
 */
export interface DoctorCheck {
  /** stable, e.g. `server`, `permissions.dml`, `claim` */
  id: string;
  title: string;
  ok: boolean | null;
  /** what was found, in a sentence or two */
  detail: string;
  /** what to do about it, e.g. the exact GRANT; null when there is nothing to do */
  remedy: string | null;
  needed: boolean;
}

// ---- schedules (recurring tasks) ---------------------------------------------------------------

/** After downtime: `skip` drops the missed ticks; `run_once` fires once for all of them. */
export type MisfirePolicy = 'skip' | 'run_once';
/** `skip_if_running`: no fire while the previous fire's task is pending or running. */
export type OverlapPolicy = 'allow' | 'skip_if_running';
/** Where a schedule is defined: a handlers module's `schedules` export, or the dashboard / API / CLI. */
export type ScheduleSource = 'code' | 'dashboard';

/** A validated schedule: when it fires and the task each fire creates (validation.ts). */
export interface ScheduleInput {
  /** unique; the same rules as a queue name */
  name: string;
  /** 5 fields, or 6 with seconds first */
  cron: string;
  /** IANA time zone the expression is read in */
  timezone: string;
  kind: TaskKind;
  command: string;
  payload: unknown;
  queue: string;
  priority: number;
  /** null: the queue's */
  maxAttempts: number | null;
  /** null: the queue's */
  timeoutMs: number | null;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  enabled: boolean;
}

/** What a store keeps of a schedule besides its definition. */
export interface ScheduleRecord extends ScheduleInput {
  source: ScheduleSource;
  /** a code schedule the last worker start still declared (false: removed from code, and disabled) */
  declared: boolean;
}

/** A fire: the task a schedule created. */
export interface ScheduleFire {
  token: string;
  /** the tick it was fired for; null for a manual run (run now) */
  fireAt: Date | null;
  createdAt: Date;
  status: TaskStatus;
}

export interface ScheduleView extends ScheduleRecord {
  /** null while disabled (or when the expression fires no more) */
  nextFireAt: Date | null;
  lastFireAt: Date | null;
  lastToken: string | null;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
  /** bumped by every change of the definition (not by fires): updates are compare-and-set on it */
  version: number;
  /** the newest fires, newest first (as many as the read asked for) */
  recent: ScheduleFire[];
}

/** The schedule a task was fired by. */
export interface TaskSchedule {
  name: string;
  /** the tick; null for a manual run */
  fireAt: Date | null;
}

/** What one check did to one due schedule (MaintenancePort.fireDue). */
export interface FireReport {
  schedule: string;
  /** tokens of the tasks created, one per tick */
  fired: { token: string; fireAt: Date }[];
  missed: number;
  overlapped: number;
  nextFireAt: Date | null;
}

/**
 * Parameters of `tx.execute` (withTransaction): on SQLite positional (`?`, an array) or named (`@name`,
 * `:name`, `$name`, an object without the prefix); on SQL Server named only (`@name`, an object; mssql
 * infers each type from the JS value). A named object with `@name` in the SQL works on both.
 */
export type ExecuteParams = readonly unknown[] | Readonly<Record<string, unknown>>;

/** What `tx.execute` returns: the rows a statement returned (SQL Server: its first result set) and the rows it changed. */
export interface ExecuteResult<Row = Record<string, unknown>> {
  rows: Row[];
  rowsAffected: number;
}

/** Options of withTransaction. */
export interface TransactionOptions {
  /**
   * Rolled back once open this long (ms; default TRANSACTION_TIMEOUT_MS, at most MAX_TRANSACTION_TIMEOUT_MS):
   * on SQLite it holds the file's one write lock, which every writer of every process waits for.
   */
  timeoutMs?: number;
}

// ---- audit trail ----------------------------------------------------------------------------------

/** Where a mutation came from: the dashboard (server actions), the HTTP API, the CLI, T-SQL, a library call, readpast itself. */
export const AUDIT_SOURCES = ['ui', 'api', 'cli', 'tsql', 'library', 'system'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** One mutation to record: who, from where, what, on what, before → after, how many. */
export interface AuditInput {
  actor: string;
  source: AuditSource;
  /** dotted, e.g. `task.retry`, `tasks.bulk_cancel`, `queue.update`, `pool.resize`, `schedule.create`, `alert.delete`, `session.kill` */
  action: string;
  /** what it acted on: a token, a queue or schedule name, `filter:<query>` for a bulk action over a filter */
  target: string;
  /** JSON-serialisable; stored as JSON text (bounded by the store) */
  before?: unknown;
  after?: unknown;
  count?: number | null;
}

export interface AuditRecord {
  id: number;
  at: Date;
  actor: string;
  source: AuditSource;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  count: number | null;
}

/** newest first; `action` matches exactly or as a prefix when it ends with `.` (e.g. `task.`); `target` exactly */
export interface AuditFilter {
  action?: string;
  target?: string;
  actor?: string;
  cursor?: number;
  limit: number;
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

// ---- attempt output: progress and log lines -------------------------------------------------------

/** `log`: a handler's ctx.log; `print`: SQL Server PRINT / RAISERROR of severity ≤ 10; `error`: an error message (severity ≥ 11). */
export type OutputStream = 'log' | 'error' | 'print';

export interface OutputLine {
  stream: OutputStream;
  line: string;
  at: Date;
}

/** The latest progress an attempt reported: percent 0–100, an optional message, when. */
export interface ProgressReport {
  percent: number;
  message: string | null;
  at: Date;
}

/** One attempt's buffered output, written by the worker that owns the attempt (WorkerPort.appendAttemptOutput). */
export interface AttemptOutputBatch {
  taskId: number;
  attempt: number;
  workerId: string;
  lines: OutputLine[];
  /** lines the worker dropped before this write (its buffer is bounded) */
  dropped: number;
  /** the latest progress, null when unchanged since the last write */
  progress: ProgressReport | null;
}

export interface AttemptLogLine {
  seq: number;
  at: Date;
  stream: OutputStream;
  line: string;
}

/** One attempt's kept output (the last lines within the bound), read after `afterSeq`. */
export interface AttemptOutputView {
  /** the attempt read (0: the task has not started) */
  attempt: number;
  lines: AttemptLogLine[];
  /** lines were dropped (the bound, lib/engine/attempt-output.ts) */
  truncated: boolean;
  dropped: number;
  progress: ProgressReport | null;
  /** pass as `afterSeq` to read only newer lines */
  next: number;
}
