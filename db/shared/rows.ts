// Row shapes of the tables both stores share, and their one mapping to the engine's types. The dialects
// differ only in how a column arrives (Cols): SQLite gives a time as epoch milliseconds, a flag as 0/1 and
// a bigint as a number; the SQL Server driver gives a Date, a boolean, a bigint as a string and a
// uniqueidentifier upper-case. Each store's rows.ts passes its Converters to rowMappers. No SQL, no driver.
import type {
  AbandonReason,
  AttemptView,
  MetricPoint,
  Outcome,
  QueueSettings,
  RunningView,
  TaskKind,
  TaskStatus,
  TaskView,
  WorkerState,
  WorkerView,
} from '../../lib/engine/types';
import { workerQueuesOf } from '../../lib/engine/types';
import { traceIdOf } from '../../lib/engine/tracing';

/** How one dialect's driver returns a time, a flag and a bigint column. */
export interface Cols {
  time: unknown;
  bool: unknown;
  bigint: unknown;
}

/** A dialect's column converters: the only thing its row mapping does differently. */
export interface Converters<C extends Cols> {
  time(v: C['time']): Date;
  bool(v: C['bool']): boolean;
  bigint(v: C['bigint']): number;
  /** a task token as the engine hands it out */
  token(v: string): string;
}

export const parseJson = (text: string | null | undefined): unknown => (text === null || text === undefined ? null : JSON.parse(text));
export const toJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

export interface TaskRow<C extends Cols> {
  id: C['bigint'];
  token: string;
  queue: string;
  kind: string;
  command: string;
  payload: string | null;
  status: string;
  priority: number;
  run_after: C['time'];
  attempts: number;
  max_attempts: number;
  timeout_ms: number | null;
  dedup_key: string | null;
  /** migration 14 (SQLite) */
  concurrency_key: string | null;
  caller: string | null;
  batch_id: C['bigint'] | null;
  stage: number | null;
  lease_until: C['time'] | null;
  worker_id: string | null;
  cancel_requested: C['bool'];
  /** durable handlers (SQLite migration 19): why a waiting task is suspended, and how many attempts ended so */
  suspended?: string | null;
  suspensions?: number;
  created_at: C['time'];
  started_at: C['time'] | null;
  finished_at: C['time'] | null;
  error_number: number | null;
  error_message: string | null;
  error_detail: string | null;
  result: string | null;
  /** set on a task a schedule fired (absent where a query does not select them) */
  schedule_name?: string | null;
  schedule_fire_at?: C['time'] | null;
  /** workflows (SQLite migration 15, SQL Server 20): the flow and node, parents in all and not yet done */
  flow_id?: C['bigint'] | null;
  flow_node?: string | null;
  parent_count?: number | null;
  parents_left?: number | null;
  /** the W3C trace context stored at enqueue (SQLite migration 18, SQL Server 22) */
  trace_parent?: string | null;
}

export interface LogRow<C extends Cols> {
  id: C['bigint'];
  task_id: C['bigint'];
  token: string;
  attempt: number;
  queue: string;
  kind: string;
  command: string;
  worker_id: string | null;
  session: number | null;
  token_no: number | null;
  batch_id: C['bigint'] | null;
  stage: number | null;
  started_at: C['time'];
  ended_at: C['time'] | null;
  outcome: string;
  error_number: number | null;
  error_message: string | null;
  error_detail: string | null;
  /** migration 15 (SQL Server) / 13 (SQLite) */
  abandon_reason?: string | null;
  /** the attempt's span (SQLite migration 18, SQL Server 22) */
  trace_parent?: string | null;
  /** the task's max attempts, status and attempts made (the attempt list joins them) */
  task_max_attempts?: number | null;
  task_status?: string | null;
  task_attempts?: number | null;
}

export interface QueueRow<C extends Cols> {
  name: string;
  concurrency_limit: number | null;
  paused: C['bool'];
  max_attempts: number;
  timeout_ms: number | null;
  backoff_ms: number;
  /** throttle (migration 14 on SQLite) */
  per_key_limit: number | null;
  key_from: string | null;
  rate_limit: number | null;
  rate_period_s: number | null;
  rate_per_key: C['bool'];
}

/** A row of the ExecutionStatus view: an attempt running now. */
export interface StatusRow<C extends Cols> {
  log_id: C['bigint'];
  token: string;
  queue: string;
  kind: string;
  command: string;
  attempt: number;
  max_attempts: number;
  worker_id: string;
  session: number | null;
  token_no: number | null;
  batch_id: C['bigint'] | null;
  stage: number | null;
  started_at: C['time'];
  lease_until: C['time'] | null;
  cancel_requested: C['bool'];
}

export interface WorkerRow<C extends Cols> {
  worker_id: string;
  host: string;
  pid: number;
  role: string;
  session: number;
  login_time: C['time'];
  started_at: C['time'];
  heartbeat_at: C['time'];
  state: string;
  /** JSON array, or NULL: every queue */
  queues: string | null;
}

export interface MetricRow<C extends Cols> {
  sec: C['bigint'];
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  latency_sum: C['bigint'];
  latency_max: number;
  depth: number | null;
}

/** the task's max attempts, and whether this attempt made it dead (its last attempt, the task dead) */
function finalOf<C extends Cols>(r: LogRow<C>): Pick<AttemptView, 'maxAttempts' | 'final'> {
  if (r.task_max_attempts === undefined || r.task_max_attempts === null) return {};
  const ended = r.outcome !== 'running' && r.outcome !== 'succeeded';
  return { maxAttempts: r.task_max_attempts, final: ended && r.task_status === 'dead' && r.task_attempts === r.attempt };
}

/** The row mappers of one dialect. */
export function rowMappers<C extends Cols>(c: Converters<C>) {
  const timeOrNull = (v: C['time'] | null | undefined): Date | null => (v === null || v === undefined ? null : c.time(v));
  const bigintOrNull = (v: C['bigint'] | null): number | null => (v === null ? null : c.bigint(v));

  function taskView(r: TaskRow<C>): TaskView {
    return {
      id: c.bigint(r.id),
      token: c.token(r.token),
      status: r.status as TaskStatus,
      queue: r.queue,
      kind: r.kind as TaskKind,
      command: r.command,
      payload: parseJson(r.payload),
      priority: r.priority,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      timeoutMs: r.timeout_ms,
      dedupKey: r.dedup_key,
      concurrencyKey: r.concurrency_key ?? null,
      caller: r.caller,
      batchId: bigintOrNull(r.batch_id),
      stage: r.stage,
      runAfter: c.time(r.run_after),
      createdAt: c.time(r.created_at),
      startedAt: timeOrNull(r.started_at),
      finishedAt: timeOrNull(r.finished_at),
      leaseUntil: timeOrNull(r.lease_until),
      workerId: r.worker_id,
      cancelRequested: c.bool(r.cancel_requested),
      result: parseJson(r.result),
      lastError: r.error_message === null ? null : { number: r.error_number, message: r.error_message, detail: r.error_detail },
      schedule: r.schedule_name ? { name: r.schedule_name, fireAt: timeOrNull(r.schedule_fire_at) } : null,
      flowId: r.flow_id === undefined ? null : bigintOrNull(r.flow_id),
      flowNode: r.flow_node ?? null,
      parentCount: r.parent_count ?? 0,
      parentsLeft: r.parents_left ?? 0,
      suspended: r.status === 'waiting' && (r.suspended === 'sleep' || r.suspended === 'event') ? r.suspended : null,
      suspensions: r.suspensions ?? 0,
      traceId: traceIdOf(r.trace_parent),
    };
  }

  function attemptView(r: LogRow<C>): AttemptView {
    return {
      id: c.bigint(r.id),
      token: c.token(r.token),
      queue: r.queue,
      kind: r.kind as TaskKind,
      command: r.command,
      attempt: r.attempt,
      workerId: r.worker_id,
      session: r.session,
      tokenNo: r.token_no,
      batchId: bigintOrNull(r.batch_id),
      stage: r.stage,
      startedAt: c.time(r.started_at),
      endedAt: timeOrNull(r.ended_at),
      outcome: r.outcome as Outcome,
      errorNumber: r.error_number,
      errorMessage: r.error_message,
      errorDetail: r.error_detail,
      abandonReason: (r.abandon_reason ?? null) as AbandonReason | null,
      traceId: traceIdOf(r.trace_parent),
      ...finalOf(r),
    };
  }

  function queueSettings(r: QueueRow<C>): QueueSettings {
    return {
      name: r.name,
      concurrencyLimit: r.concurrency_limit,
      paused: c.bool(r.paused),
      maxAttempts: r.max_attempts,
      timeoutMs: r.timeout_ms,
      backoffMs: r.backoff_ms,
      perKeyLimit: r.per_key_limit,
      keyFrom: r.key_from,
      rateLimit:
        r.rate_limit === null || r.rate_period_s === null
          ? null
          : { limit: r.rate_limit, periodSeconds: r.rate_period_s, perKey: c.bool(r.rate_per_key) },
    };
  }

  function runningView(r: StatusRow<C>): RunningView {
    return {
      attemptId: c.bigint(r.log_id),
      token: c.token(r.token),
      queue: r.queue,
      kind: r.kind as TaskKind,
      command: r.command,
      attempt: r.attempt,
      maxAttempts: r.max_attempts,
      workerId: r.worker_id,
      session: r.session,
      tokenNo: r.token_no,
      batchId: bigintOrNull(r.batch_id),
      stage: r.stage,
      startedAt: c.time(r.started_at),
      leaseUntil: timeOrNull(r.lease_until),
      cancelRequested: c.bool(r.cancel_requested),
    };
  }

  function workerView(r: WorkerRow<C>, currentTask: WorkerView['currentTask']): WorkerView {
    return {
      workerId: r.worker_id,
      host: r.host,
      pid: r.pid,
      role: r.role,
      session: r.session,
      loginTime: c.time(r.login_time),
      startedAt: c.time(r.started_at),
      heartbeatAt: c.time(r.heartbeat_at),
      state: r.state as WorkerState,
      currentTask,
      queues: workerQueuesOf(r.queues),
    };
  }

  function metricPoint(r: MetricRow<C>): MetricPoint {
    return {
      at: new Date(c.bigint(r.sec) * 1000),
      enqueued: r.enqueued,
      started: r.started,
      succeeded: r.succeeded,
      failed: r.failed,
      latencySumMs: c.bigint(r.latency_sum),
      latencyMaxMs: r.latency_max,
      depth: r.depth,
    };
  }

  return { timeOrNull, taskView, attemptView, queueSettings, runningView, workerView, metricPoint };
}
