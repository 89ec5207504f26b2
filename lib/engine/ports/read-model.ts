// Everything the dashboard, the API and the CLI show (lib/api's reads).
import type {
  AbandonedCount,
  AttemptFilter,
  AuditFilter,
  AuditRecord,
  AttemptOutputView,
  AttemptView,
  BatchStatus,
  BatchView,
  FailureGroupQuery,
  FlowDetail,
  FlowFilter,
  FlowSummary,
  FingerprintGroup,
  KeyUsage,
  MetricPoint,
  Page,
  PendingBreakdown,
  QueueChange,
  QueueCounts,
  QueueView,
  RateUsage,
  RunningView,
  ScheduleView,
  TaskDetail,
  TaskFilter,
  TaskView,
  TokenView,
  WorkerView,
  EventDetail,
  EventFilter,
  EventView,
  StepView,
  SuspendedCount,
} from '../types';
import type { HistoryQuery, HistoryTotals, HistoryView, QueueThroughput } from '../history';
import type { AlertFiring, AlertFiringFilter, AlertRule, AttemptFact, DeadTaskFact, DeadTaskQuery } from '../alert-types';
import type { PoolSetting } from '../pool-settings';

/** Everything the dashboard, the API and the CLI show. Each read is an indexed read or a kept aggregate. */
export interface ReadModel {
  /** a task with its history, parents and children */
  getTask(token: string): Promise<TaskDetail | null>;
  /** a flow with every node and edge (≤ MAX_FLOW_NODES nodes, plus tasks added later with dependsOn) */
  getFlow(id: number): Promise<FlowDetail | null>;
  /** flows newest first, keyset-paged on id, with their counts by status */
  listFlows(filter: FlowFilter): Promise<Page<FlowSummary>>;
  listTasks(filter: TaskFilter): Promise<Page<TaskView>>;
  /** a durable task's recorded steps in order, large results previewed (null: no such task) */
  listSteps(token: string): Promise<StepView[] | null>;
  /** events newest first, keyset-paged on id */
  listEvents(filter: EventFilter): Promise<Page<EventView>>;
  /** an event with the kept tasks it resumed */
  getEvent(id: number): Promise<EventDetail | null>;
  /** suspended tasks (sleeping, waiting for an event) per queue */
  suspendedCounts(): Promise<SuspendedCount[]>;
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
  /** a queue's concurrency keys with running or pending tasks: most running first, then most pending (top `limit`) */
  queueKeys(queue: string, limit: number): Promise<KeyUsage[]>;
  /**
   * a rate-limited queue's window now (null: no rate limit): for a per-key rate, the window of `key` (null: the
   * tasks with no key); otherwise the queue's (`key` ignored)
   */
  rateWindow(queue: string, key: string | null): Promise<RateUsage | null>;
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
