// The narrow interface between the engine and a database. Every dialect in db/ implements it
// and passes db/contract. Nothing here knows SQL.
import type {
  AttemptFilter, AttemptResult, AttemptView, ClaimedTask, ClaimOptions, EnqueueInput, EnqueueResult,
  FailureFilter, FailureGroup, HeartbeatInput, HeartbeatResult, MetricPoint, Page, PruneResult, QueueCounts,
  ProcedureParameter, QueueSettings, RescueResult, BatchInput, BatchStatus, BatchView, QueueChange, QueuePatch, QueueView, TokenView, RunningView, SqlRunResult, TaskDetail, TaskFilter, TaskKind, TaskView,
  WorkerRegistration, WorkerSession, WorkerSlot, WorkerView,
} from './types';

export type Dialect = 'sqlite' | 'mssql';

export type CancelResult = 'cancelled' | 'cancel_requested' | 'not_found' | 'conflict';
export type RetryResult = 'retried' | 'not_found' | 'conflict';
export type DeleteResult = 'deleted' | 'not_found' | 'conflict';

export interface Store {
  readonly dialect: Dialect;
  /** task kinds this database can run */
  readonly kinds: readonly TaskKind[];
  /** a printable description with no secrets (e.g. `sqlite:data/readpast.db`) */
  readonly description: string;

  /** Create or upgrade the schema. Idempotent; safe when several processes call it at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * Called after this store instance commits something that may make a task claimable
   * (enqueue, retry, a settled attempt). Lets an in-process pool wake at once.
   */
  onWake(listener: () => void): () => void;

  // ---- producers -------------------------------------------------------------------------
  enqueue(input: EnqueueInput): Promise<EnqueueResult>;
  /** all in one transaction; results in input order */
  enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]>;

  // ---- workers -----------------------------------------------------------------------------
  registerWorker(reg: WorkerRegistration): Promise<WorkerSession>;
  /** the worker stopped cleanly (state `stopped`) */
  deregisterWorker(workerId: string): Promise<void>;
  /** handler names a worker process can run (shown by the enqueue form, accepted at enqueue) */
  registerHandlers(names: string[]): Promise<void>;
  knownHandlers(): Promise<string[]>;
  /** renew worker heartbeats and the leases of their running tasks */
  heartbeat(input: HeartbeatInput): Promise<HeartbeatResult>;
  /** claim at most one due task per slot; each claim starts an attempt logged in ExecutionLog */
  claim(slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]>;
  /** settle attempts; fenced on (task, worker, attempt): false where the attempt no longer owns the task */
  finish(results: AttemptResult[]): Promise<boolean[]>;
  /** run a `sql` task's text on the worker's own session */
  runSql(slot: WorkerSlot, text: string, signal: AbortSignal): Promise<SqlRunResult>;

  // ---- maintenance -----------------------------------------------------------------------
  /** expired leases: attempt → abandoned, task → pending (run at once) or dead when out of attempts */
  rescueExpired(): Promise<RescueResult>;
  /** workers in state `running` whose heartbeat is older than `staleMs` become `lost`; returns how many */
  markLostWorkers(staleMs: number): Promise<number>;
  /** delete terminal tasks finished before `olderThan`, with their log rows; old stopped workers */
  prune(olderThan: Date): Promise<PruneResult>;
  /** record the pending depth for the current second of the metrics series */
  sampleDepth(): Promise<void>;

  // ---- operators -------------------------------------------------------------------------
  getTask(token: string): Promise<TaskDetail | null>;
  /** pending → cancelled; running → cancel requested (cooperative) */
  cancel(token: string): Promise<CancelResult>;
  /** dead or cancelled → pending, granting one more attempt if they were used up */
  retry(token: string): Promise<RetryResult>;
  /** retry every dead task matching the filter; returns how many */
  retryFailed(filter: FailureFilter): Promise<number>;
  /** delete a terminal task and its log rows */
  deleteTask(token: string): Promise<DeleteResult>;
  /** delete every dead task matching the filter; returns how many */
  deleteFailed(filter: FailureFilter): Promise<number>;

  getQueue(name: string): Promise<QueueSettings | null>;
  listQueues(): Promise<QueueSettings[]>;

  // ---- queues: concurrency limits, pause, tokens ------------------------------------------
  /** change a queue's limit / pause (creating the queue if needed); each change is recorded with `changedBy` */
  setQueue(name: string, patch: QueuePatch, changedBy: string): Promise<QueueSettings>;
  /** every queue with its limit, paused, pending, running and granted tokens */
  listQueueViews(): Promise<QueueView[]>;
  /** recorded changes, newest first */
  queueChanges(queue: string | null, limit: number): Promise<QueueChange[]>;
  /** token grants of one queue, or of all */
  listTokens(queue: string | null): Promise<TokenView[]>;

  // ---- batches: ordered stages of parallel tasks -------------------------------------------
  createBatch(input: BatchInput): Promise<BatchView>;
  getBatch(id: number): Promise<BatchView | null>;
  listBatches(filter: { status?: BatchStatus; cursor?: number; limit?: number }): Promise<Page<BatchView>>;
  /** no more tasks: the batch completes once all its tasks are terminal */
  releaseBatch(id: number): Promise<'released' | 'not_found' | 'conflict'>;
  /** pending tasks cancelled, running ones asked to stop */
  cancelBatch(id: number): Promise<{ result: 'cancelled' | 'not_found' | 'conflict'; cancelled: number }>;

  // ---- views (each poll must be cheap: indexed reads and kept aggregates only) ------------
  countsByQueue(): Promise<QueueCounts[]>;
  listTasks(filter: TaskFilter): Promise<Page<TaskView>>;
  listAttempts(filter: AttemptFilter): Promise<Page<AttemptView>>;
  /** ExecutionStatus */
  listRunning(): Promise<RunningView[]>;
  listWorkers(): Promise<WorkerView[]>;
  failureGroups(filter: FailureFilter): Promise<FailureGroup[]>;
  metrics(since: Date): Promise<MetricPoint[]>;

  // ---- optional, dialect-specific capabilities ---------------------------------------------
  /** `procedure` tasks: run a stored procedure on the worker's own session; result = outputs + return code */
  runProcedure?(slot: WorkerSlot, name: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** the parameters of a procedure, or null when there is no such procedure */
  describeProcedure?(name: string): Promise<ProcedureParameter[] | null>;
  /** refuse (ValidationError naming the parameter) values that cannot convert to the procedure's parameter types */
  validateProcedure?(name: string, params: Record<string, unknown>): Promise<void>;
  /** whether the login may read server/database state (DMVs); detected once */
  liveStatusAvailable?(): Promise<{ available: boolean; reason: string | null }>;
  /** KILL the session running a task (operator option; needs ALTER ANY CONNECTION) */
  killSession?(token: string): Promise<'killed' | 'not_found' | 'conflict'>;
}
