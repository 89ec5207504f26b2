// Producers' and operators' writes (lib/api): the CommandPort, the audit row each command writes in its own
// transaction (AuditWrite), and the commands' results.
import type {
  AuditInput,
  BatchInput,
  BatchView,
  BulkAction,
  BulkOutcome,
  CancelFlowResult,
  EnqueueInput,
  FlowInput,
  FlowResult,
  RetryFlowResult,
  EditTaskResult,
  EnqueueResult,
  ExecuteParams,
  ExecuteResult,
  FailureFilter,
  QueuePatch,
  QueueSettings,
  RetryFailedResult,
  ScheduleRecord,
  TaskPatch,
  TaskStatus,
  TransactionOptions,
  SendEventInput,
  SendEventResult,
  WakeResult,
} from '../types';
import type { AlertRule, AlertRuleInput, AlertWrite, FiredAlert } from '../alert-types';
import type { PoolSetting, PoolSettingInput } from '../pool-settings';

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
/** `conflict`: not finished, or an unfinished task depends on it */
export type DeleteResult = 'deleted' | 'not_found' | 'conflict';
export type ReleaseResult = 'released' | 'not_found' | 'conflict';
export type CancelBatchResult = { result: 'cancelled' | 'not_found' | 'conflict'; cancelled: number };
export type KillResult = 'killed' | 'not_found' | 'conflict';

/**
 * One open transaction of `CommandPort.transaction`: the caller's statements and enqueued tasks commit or
 * roll back together. Calls are run one at a time, in the order made (one connection, one statement at once).
 */
export interface StoreTransaction {
  execute<Row = Record<string, unknown>>(sql: string, params?: ExecuteParams): Promise<ExecuteResult<Row>>;
  enqueue(input: EnqueueInput): Promise<EnqueueResult>;
  enqueueMany(inputs: EnqueueInput[]): Promise<EnqueueResult[]>;
  createFlow(input: FlowInput): Promise<FlowResult>;
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
   * A whole flow in one transaction (nodes arrive in topological order, validated by lib/engine/flows.ts):
   * a Flows row, its tasks (roots pending, the rest waiting) and their edges. In the caller's transaction when
   * `opts.transaction` is given (as enqueue).
   */
  createFlow(input: FlowInput, opts?: EnqueueCallOptions, audit?: AuditWrite<FlowResult>): Promise<FlowResult>;
  /** every unfinished node: waiting and pending → cancelled, running → cancel requested; in one transaction */
  cancelFlow(flowId: number, audit?: AuditWrite<CancelFlowResult>): Promise<CancelFlowResult>;
  /**
   * retry the flow's failed nodes: each dead node, and each cancelled one not cancelled by a parent (those are
   * re-armed by their parent's retry), as `retry` does — back to pending, or waiting while a parent is unfinished
   */
  retryFlow(flowId: number, audit?: AuditWrite<RetryFlowResult>): Promise<RetryFlowResult>;
  /**
   * Run `fn` in a new transaction: commit when it resolves, roll back when it rejects (its error is
   * rethrown) or outlives `timeoutMs`. Tasks it enqueued wake this store's listeners after the commit.
   */
  transaction<T>(fn: (tx: StoreTransaction) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Send an event (types/durable.ts): its row, and every task suspended on an event of its name whose match the
   * payload contains resumed with it (the wait's step over, the task pending), in one transaction.
   */
  sendEvent(input: SendEventInput, audit?: AuditWrite<SendEventResult>): Promise<SendEventResult>;
  /** a suspended task (sleeping or waiting for an event) resumed now: its sleep or wait returns null */
  wake(token: string, audit?: AuditWrite<WakeResult>): Promise<WakeResult>;
  /** waiting or pending → cancelled (its children's policies applied); running → cancel requested (cooperative) */
  cancel(token: string, audit?: AuditWrite<CancelResult>): Promise<CancelResult>;
  /**
   * dead or cancelled → pending (waiting while it has an unfinished parent), granting one more attempt if they
   * were used up; the children it cancelled are re-armed (types/flows.ts)
   */
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
