// The ports between the engine and a database. Each part of readpast sees only the port it needs:
// the worker loop a WorkerPort, housekeeping a MaintenancePort, lib/api the CommandPort and the
// ReadModel, the SQL Server pages the optional SqlServerExtras. Every dialect in db/ implements all
// of them and passes db/contract. Nothing here knows SQL.
import type {
  AbandonedCount,
  AttemptFilter,
  AuditFilter,
  AuditInput,
  AuditRecord,
  AttemptResult,
  AttemptOutputBatch,
  AttemptOutputView,
  AttemptView,
  BatchInput,
  BatchStatus,
  BatchView,
  BulkAction,
  BulkOutcome,
  ClaimedTask,
  ClaimOptions,
  DoctorCheck,
  EnqueueInput,
  EditTaskResult,
  EnqueueResult,
  ExecuteParams,
  ExecuteResult,
  FailureFilter,
  FailureGroupQuery,
  FingerprintGroup,
  FireReport,
  HeartbeatInput,
  HeartbeatResult,
  LiveStatus,
  MetricPoint,
  OutputStream,
  Page,
  PendingBreakdown,
  ProcedureParameter,
  PruneResult,
  QueueChange,
  QueueCounts,
  QueuePatch,
  QueueSettings,
  QueueView,
  RescueResult,
  RetryFailedResult,
  RunningView,
  ScheduleRecord,
  ScheduleView,
  SqlRunResult,
  TaskDetail,
  TaskFilter,
  TaskKind,
  TaskPatch,
  TaskStatus,
  TaskView,
  TokenView,
  TransactionOptions,
  WorkerRegistration,
  WorkerSession,
  WorkerSlot,
  WorkerView,
} from './types';
import type { HistoryQuery, HistoryTotals, HistoryView, QueueThroughput } from './history';
import type {
  AlertFiring,
  AlertFiringFilter,
  AlertRule,
  AlertRuleInput,
  AlertWrite,
  AttemptFact,
  DeadTaskFact,
  DeadTaskQuery,
  FiredAlert,
} from './alert-types';
import type { PoolSetting, PoolSettingInput } from './pool-settings';

export type Dialect = 'sqlite' | 'mssql';

/**
 * The audit row an operator's command writes inside its own transaction (AuditLog), so that the change
 * and its record commit together or not at all. `entry` builds the row from the command's outcome (or
 * rows: an edit that also retried the task); null: nothing to record (refused, nothing found, nothing
 * changed). It may be called again when the store runs the transaction again, so it only computes. An
 * action that commits in several transactions (the bulk chunks of lib/api/bulk.ts, a store's own rounds)
 * passes the same object to each: the store sets `id` when it inserts the (first) row, and each later
 * transaction rewrites that row (after, count) with the entry built from the outcome so far, so the row
 * always says what has been committed.
 */
export interface AuditWrite<R> {
  entry(outcome: R): AuditInput | AuditInput[] | null;
  id?: number;
}

export type CancelResult = 'cancelled' | 'cancel_requested' | 'not_found' | 'conflict';
/**
 * `batch_aborted`: the task is of a stage after a failed one in a batch that aborts on failure — the
 * claim would never start it (stage rules, claim-policy.ts), so the retry is refused.
 */
export type RetryResult = 'retried' | 'not_found' | 'conflict' | 'batch_aborted' | DedupKeyHeld;
/** The task is dead (or cancelled), but an unfinished task holds its dedup key: retrying it would make two. */
export interface DedupKeyHeld {
  result: 'dedup_key_held';
  dedupKey: string;
  /** the holder */
  token: string;
  status: TaskStatus;
}
export type DeleteResult = 'deleted' | 'not_found' | 'conflict';
export type ReleaseResult = 'released' | 'not_found' | 'conflict';
export type CancelBatchResult = { result: 'cancelled' | 'not_found' | 'conflict'; cancelled: number };
export type KillResult = 'killed' | 'not_found' | 'conflict';

/** The attempt a `sql` or `procedure` task runs for: the store tags and records its session with it. */
export interface RunningAttempt {
  taskId: number;
  attempt: number;
  workerId: string;
  /** the session the attempt was claimed on */
  session: number;
  /** where the attempt's output goes (SQL Server: PRINT and error messages as they arrive); absent: not recorded */
  output?: (stream: OutputStream, line: string) => void;
}

/** What a worker process needs: its workers' lives, claims, settlements, and running sql/procedure tasks. */
export interface WorkerPort {
  registerWorker(reg: WorkerRegistration): Promise<WorkerSession>;
  /** the worker stopped cleanly (state `stopped`) */
  deregisterWorker(workerId: string): Promise<void>;
  /** handler names a worker process can run (shown by the enqueue form, accepted at enqueue) */
  registerHandlers(names: string[]): Promise<void>;
  /** renew worker heartbeats and the leases of their running tasks (only leases not yet expired) */
  heartbeat(input: HeartbeatInput): Promise<HeartbeatResult>;
  /** claim at most one due task per slot; each claim starts an attempt logged in ExecutionLog */
  claim(slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]>;
  /** settle attempts; fenced on (task, worker, attempt) and an unexpired lease: false where the attempt no longer owns the task */
  finish(results: AttemptResult[]): Promise<boolean[]>;
  /**
   * append attempts' buffered log lines and latest progress, kept bounded per attempt (the last
   * MAX_ATTEMPT_LINES lines / MAX_ATTEMPT_BYTES, the rest counted as dropped); fenced like finish:
   * false where the attempt no longer owns its task (nothing is written for it)
   */
  appendAttemptOutput(batch: AttemptOutputBatch[]): Promise<boolean[]>;
  /** run a `sql` task's text on the worker's own session */
  runSql(attempt: RunningAttempt, text: string, signal: AbortSignal): Promise<SqlRunResult>;
  /** run a `procedure` task on the worker's own session; result = outputs + return code. Stores without procedures refuse. */
  runProcedure(attempt: RunningAttempt, name: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /**
   * Called after this store instance commits something that may make a task claimable
   * (enqueue, retry, a settled attempt). Lets an in-process pool wake at once.
   */
  onWake(listener: () => void): () => void;
}

/** Housekeeping any process with a pool may run; every method is idempotent across processes. */
export interface MaintenancePort {
  /** expired leases: attempt → abandoned, task → pending (run at once) or dead when out of attempts */
  rescueExpired(): Promise<RescueResult>;
  /** workers in state `running` whose heartbeat is older than `staleMs` become `lost`; returns how many */
  markLostWorkers(staleMs: number): Promise<number>;
  /** delete terminal tasks finished before `olderThan`, with their log rows; old stopped workers */
  prune(olderThan: Date): Promise<PruneResult>;
  /** record the pending depth for the current second of the metrics series */
  sampleDepth(): Promise<void>;
  /**
   * Fire every due schedule (rules: lib/engine/schedules.ts planFires): each fire inserts its task and
   * advances the schedule in one transaction, unique per (schedule, tick), so any number of processes
   * calling at once create exactly one task per tick. `now` defaults to the store's clock (tests pass one).
   */
  fireDue(now?: Date): Promise<FireReport[]>;
  /** judge the enabled alert rules now and record what fires (lib/engine/alerts.ts evaluateAlerts; de-duplicated) */
  evaluateAlerts(now?: Date): Promise<FiredAlert[]>;
}

/**
 * One open transaction of `CommandPort.transaction`: the caller's statements and enqueued tasks commit or
 * roll back together. Calls are run one at a time, in the order made (one connection, one statement at once).
 */
export interface StoreTransaction {
  execute<Row = Record<string, unknown>>(sql: string, params?: ExecuteParams): Promise<ExecuteResult<Row>>;
  enqueue(input: EnqueueInput): Promise<EnqueueResult>;
  enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]>;
}

/**
 * `transaction`: a transaction the caller opened itself, the task enqueued in it (SQL Server: an mssql
 * `Transaction`, checked by the store; typed opaquely so nothing above db/ imports a driver). Stores that
 * cannot take one refuse it with a ValidationError naming `transaction`.
 */
export interface EnqueueCallOptions {
  transaction?: unknown;
}

/** Producers' and operators' writes. Inputs arrive validated (lib/engine/validation). */
export interface CommandPort {
  enqueue(input: EnqueueInput, opts?: EnqueueCallOptions, audit?: AuditWrite<EnqueueResult>): Promise<EnqueueResult>;
  /** all in one transaction; results in input order */
  enqueueMany(inputs: EnqueueInput[], opts?: EnqueueCallOptions, audit?: AuditWrite<EnqueueResult[]>): Promise<EnqueueResult[]>;
  /**
   * Run `fn` in a new transaction: commit when it resolves, roll back when it rejects (its error is
   * rethrown) or outlives `timeoutMs`. Tasks it enqueued wake this store's listeners after the commit.
   */
  transaction<T>(fn: (tx: StoreTransaction) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /** pending → cancelled; running → cancel requested (cooperative) */
  cancel(token: string, audit?: AuditWrite<CancelResult>): Promise<CancelResult>;
  /** dead or cancelled → pending, granting one more attempt if they were used up */
  retry(token: string, audit?: AuditWrite<RetryResult>): Promise<RetryResult>;
  /**
   * retry every dead task matching the filter (skipping those `retry` refuses as batch_aborted), the newest
   * per dedup key (RetryFailedResult)
   */
  retryFailed(filter: FailureFilter, audit?: AuditWrite<RetryFailedResult>): Promise<RetryFailedResult>;
  /** delete a terminal task and its log rows */
  deleteTask(token: string, audit?: AuditWrite<DeleteResult>): Promise<DeleteResult>;
  /** delete every dead task matching the filter; returns how many */
  deleteFailed(filter: FailureFilter, audit?: AuditWrite<number>): Promise<number>;
  /** change a queue's limit / pause (creating the queue if needed); each change is recorded with `changedBy` */
  setQueue(name: string, patch: QueuePatch, changedBy: string, audit?: AuditWrite<QueueSettings>): Promise<QueueSettings>;
  createBatch(input: BatchInput, audit?: AuditWrite<BatchView>): Promise<BatchView>;
  /** no more tasks: the batch completes once all its tasks are terminal */
  releaseBatch(id: number, audit?: AuditWrite<ReleaseResult>): Promise<ReleaseResult>;
  /** pending tasks cancelled, running ones asked to stop */
  cancelBatch(id: number, audit?: AuditWrite<CancelBatchResult>): Promise<CancelBatchResult>;
  /** a new schedule, first due at `nextFireAt` (null: disabled); `exists` when the name is taken */
  createSchedule(
    s: ScheduleRecord,
    nextFireAt: Date | null,
    by: string,
    audit?: AuditWrite<'created' | 'exists'>,
  ): Promise<'created' | 'exists'>;
  /**
   * Replace a schedule's definition if its version is still `version` (`conflict` otherwise: changed
   * meanwhile). `nextFireAt` undefined keeps the next fire time (fires advance it without a new version).
   */
  updateSchedule(
    name: string,
    s: ScheduleRecord,
    version: number,
    nextFireAt: Date | null | undefined,
    by: string,
    audit?: AuditWrite<'updated' | 'not_found' | 'conflict'>,
  ): Promise<'updated' | 'not_found' | 'conflict'>;
  /** the schedule goes; the tasks it fired stay */
  deleteSchedule(name: string, audit?: AuditWrite<'deleted' | 'not_found'>): Promise<'deleted' | 'not_found'>;
  /** fire now, outside the cron (a manual run: no tick; also while disabled); null when there is no such schedule */
  runSchedule(name: string, by: string, audit?: AuditWrite<EnqueueResult | null>): Promise<EnqueueResult | null>;
  /**
   * append to the audit trail (AuditLog), in one transaction; the store's clock stamps `at`. For what changes
   * nothing in this database (a KILL of a session); a command writes its own row (AuditWrite).
   */
  recordAudit(entries: AuditInput[]): Promise<void>;
  /** a new alert rule; `exists` when the name is taken */
  createAlertRule(input: AlertRuleInput, by: string, audit?: AuditWrite<AlertRule | 'exists'>): Promise<AlertRule | 'exists'>;
  /** replace a rule's definition (its cursor kept) */
  updateAlertRule(
    id: number,
    input: AlertRuleInput,
    by: string,
    audit?: AuditWrite<AlertRule | 'not_found' | 'exists'>,
  ): Promise<AlertRule | 'not_found' | 'exists'>;
  /** the rule goes; its firings stay (history) */
  deleteAlertRule(id: number, audit?: AuditWrite<'deleted' | 'not_found'>): Promise<'deleted' | 'not_found'>;
  /**
   * In one transaction: move the rules' cursors (each only if still where it was read), then record each firing
   * with its delivery task unless the same (rule, key) fired within its window, or it needs a cursor that moved
   * elsewhere. Any number of processes writing the same firings at once record it once. Returns what was recorded.
   */
  writeAlerts(w: AlertWrite, audit?: AuditWrite<FiredAlert[]>): Promise<FiredAlert[]>;
  /**
   * Change a task that is not running (pending, dead, cancelled); `retry` also puts a dead or cancelled one
   * back to pending (one more attempt if used up). Kept counts follow a queue change. `running` while it runs.
   */
  editTask(token: string, patch: TaskPatch, retry: boolean, audit?: AuditWrite<EditTaskResult>): Promise<EditTaskResult>;
  /**
   * One bulk command over up to BULK_CHUNK tokens (lib/engine/limits.ts), in one transaction: retry
   * (dead/cancelled), cancel (pending; running ones asked to stop count as done), delete (finished),
   * run_now (pending, due now), priority (pending, dead or cancelled get `priority`).
   */
  bulk(action: BulkAction, tokens: string[], opts: { priority?: number }, audit?: AuditWrite<BulkOutcome>): Promise<BulkOutcome>;
  /** store the pool size of a host and role (PoolSettings); returns the setting it replaced */
  setPoolSetting(s: PoolSettingInput, audit?: AuditWrite<PoolSetting | null>): Promise<PoolSetting | null>;
}

/** Everything the dashboard, the API and the CLI show. Each read is an indexed read or a kept aggregate. */
export interface ReadModel {
  getTask(token: string): Promise<TaskDetail | null>;
  listTasks(filter: TaskFilter): Promise<Page<TaskView>>;
  listAttempts(filter: AttemptFilter): Promise<Page<AttemptView>>;
  /** ExecutionStatus (on SQL Server with the DMV columns where the login may read them) */
  listRunning(): Promise<RunningView[]>;
  listWorkers(): Promise<WorkerView[]>;
  /** names registered by any worker process */
  knownHandlers(): Promise<string[]>;
  metrics(since: Date): Promise<MetricPoint[]>;
  /** history buckets over [from, to) from the per-minute rollups (per-second series below a minute), with the names seen */
  history(q: HistoryQuery): Promise<HistoryView>;
  /** succeeded per queue and bucket over [from, to) (per-minute rollups) */
  queueThroughput(from: Date, to: Date, bucketMs: number): Promise<QueueThroughput[]>;
  /** cumulative counts per (queue, command) and histograms per queue, monotonic (the Prometheus counters) */
  historyTotals(): Promise<HistoryTotals>;
  countsByQueue(): Promise<QueueCounts[]>;
  /** every queue with its limit, paused, pending, running and granted tokens */
  listQueues(): Promise<QueueView[]>;
  /** recorded queue changes, newest first */
  queueChanges(queue: string | null, limit: number): Promise<QueueChange[]>;
  /** token grants of one queue, or of all */
  listTokens(queue: string | null): Promise<TokenView[]>;
  getBatch(id: number): Promise<BatchView | null>;
  listBatches(filter: { status?: BatchStatus; cursor?: number; limit?: number }): Promise<Page<BatchView>>;
  /** every schedule by name, each with its `recent` newest fires */
  listSchedules(recent: number): Promise<ScheduleView[]>;
  getSchedule(name: string, recent: number): Promise<ScheduleView | null>;
  /** per queue with pending tasks: ready / scheduled / retrying counts, oldest ready, next run-at (bounded reads) */
  pendingBreakdown(): Promise<PendingBreakdown[]>;
  /** the audit trail, newest first, keyset-paged on id */
  listAudit(filter: AuditFilter): Promise<Page<AuditRecord>>;
  /** every alert rule by name (with its secret: the front door masks it) */
  listAlertRules(): Promise<AlertRule[]>;
  getAlertRule(id: number): Promise<AlertRule | null>;
  /** fired alerts newest first, with their delivery task's status; keyset-paged on id */
  listAlertFirings(filter: AlertFiringFilter): Promise<Page<AlertFiring>>;
  /** dead tasks finished after (afterAt, afterId) and at least lagMs ago, oldest first, at most `limit` */
  deadTasksSince(q: DeadTaskQuery): Promise<DeadTaskFact[]>;
  /** a command's newest ended attempts, newest first (at most `limit`) */
  recentAttempts(command: string, limit: number): Promise<AttemptFact[]>;
  /** dead tasks grouped by failure fingerprint, command and queue, largest first, offset-paged (`nextCursor`) */
  failureGroupPage(filter: FailureGroupQuery): Promise<Page<FingerprintGroup>>;
  /** an attempt's kept log lines after `afterSeq` and its progress (default: the task's latest attempt); null: no such task */
  attemptOutput(token: string, attempt?: number, afterSeq?: number): Promise<AttemptOutputView | null>;
  /** the pool size stored for a host and role, applied when that pool starts */
  getPoolSetting(host: string, role: string): Promise<PoolSetting | null>;
  /** the store's clock (SQL Server: the server's), which every time the store writes is read from */
  clock(): Promise<Date>;
  /** attempts the rescue abandoned that ended at or after `since`, by queue and reason (/metrics) */
  abandonedSince(since: Date): Promise<AbandonedCount[]>;
}

/** What only SQL Server has: stored procedures, live session state from the DMVs, KILL. */
export interface SqlServerExtras {
  /** the parameters of a procedure, or null when there is no such procedure */
  describeProcedure(name: string): Promise<ProcedureParameter[] | null>;
  /** whether the login may read server/database state (DMVs), and why not */
  liveStatus(): Promise<LiveStatus>;
  /** KILL the session running a task (needs ALTER ANY CONNECTION) */
  killSession(token: string): Promise<KillResult>;
  /** whether T-SQL callers (readpast.ExecAsync) may enqueue sql tasks: the database's allow_sql setting */
  setAllowSql(allow: boolean, changedBy: string, audit?: AuditWrite<void>): Promise<void>;
}

/** What a store supports that the engine adapts to: each store says its own (nothing above db/ tests the dialect). */
export interface StoreCapabilities {
  /**
   * Tasks a pool claims ahead of its idle workers by default (PoolOptions.prefetch): many where one claim
   * transaction serves every slot (SQLite), 0 where a claim takes one round trip per slot anyway (SQL Server).
   */
  readonly prefetch: number;
}

/** One database, seen through its ports. */
export interface Store {
  readonly dialect: Dialect;
  /** task kinds this database can run */
  readonly kinds: readonly TaskKind[];
  readonly capabilities: StoreCapabilities;
  /** a printable description with no secrets (e.g. `sqlite:data/readpast.db`) */
  readonly description: string;
  readonly worker: WorkerPort;
  readonly maintenance: MaintenancePort;
  readonly commands: CommandPort;
  readonly reads: ReadModel;
  /** null where the database has none of SQL Server's extras */
  readonly sqlServer: SqlServerExtras | null;
  /** Create or upgrade the schema. Idempotent; safe when several processes call it at once. */
  migrate(): Promise<void>;
  /**
   * What will work here before the first task runs (`readpast doctor`): the server or file, the
   * schema, permissions per feature, a write or a claim rolled back. Changes nothing; never throws
   * for what it finds (a failure is a check with ok = false), and works on a store not migrated.
   */
  diagnose(): Promise<DoctorCheck[]>;
  close(): Promise<void>;
}
