// Row shapes of the SQLite tables and their mapping to the engine's types.
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

export interface TaskRow {
  id: number;
  token: string;
  queue: string;
  kind: string;
  command: string;
  payload: string | null;
  status: string;
  priority: number;
  run_after: number;
  attempts: number;
  max_attempts: number;
  timeout_ms: number | null;
  dedup_key: string | null;
  caller: string | null;
  batch_id: number | null;
  stage: number | null;
  lease_until: number | null;
  worker_id: string | null;
  cancel_requested: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  error_number: number | null;
  error_message: string | null;
  error_detail: string | null;
  result: string | null;
  /** set on a task a schedule fired (absent where a query does not select them) */
  schedule_name?: string | null;
  schedule_fire_at?: number | null;
}

export interface LogRow {
  id: number;
  task_id: number;
  token: string;
  attempt: number;
  queue: string;
  kind: string;
  command: string;
  worker_id: string | null;
  session: number | null;
  token_no: number | null;
  batch_id: number | null;
  stage: number | null;
  started_at: number;
  ended_at: number | null;
  outcome: string;
  error_number: number | null;
  error_message: string | null;
  error_detail: string | null;
  /** migration 15 (SQL Server) / 13 (SQLite) */
  abandon_reason?: string | null;
  /** the task's max attempts, status and attempts made (the attempt list joins them) */
  task_max_attempts?: number | null;
  task_status?: string | null;
  task_attempts?: number | null;
}

export interface QueueRow {
  name: string;
  concurrency_limit: number | null;
  paused: number;
  max_attempts: number;
  timeout_ms: number | null;
  backoff_ms: number;
}

export const date = (ms: number) => new Date(ms);
export const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));
export const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));
export const toJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

export function taskView(r: TaskRow): TaskView {
  return {
    id: r.id,
    token: r.token,
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
    caller: r.caller,
    batchId: r.batch_id,
    stage: r.stage,
    runAfter: date(r.run_after),
    createdAt: date(r.created_at),
    startedAt: dateOrNull(r.started_at),
    finishedAt: dateOrNull(r.finished_at),
    leaseUntil: dateOrNull(r.lease_until),
    workerId: r.worker_id,
    cancelRequested: r.cancel_requested === 1,
    result: parseJson(r.result),
    lastError: r.error_message === null ? null : { number: r.error_number, message: r.error_message, detail: r.error_detail },
    schedule: r.schedule_name ? { name: r.schedule_name, fireAt: r.schedule_fire_at == null ? null : date(r.schedule_fire_at) } : null,
  };
}

export function attemptView(r: LogRow): AttemptView {
  return {
    id: r.id,
    token: r.token,
    queue: r.queue,
    kind: r.kind as TaskKind,
    command: r.command,
    attempt: r.attempt,
    workerId: r.worker_id,
    session: r.session,
    tokenNo: r.token_no,
    batchId: r.batch_id,
    stage: r.stage,
    startedAt: date(r.started_at),
    endedAt: dateOrNull(r.ended_at),
    outcome: r.outcome as Outcome,
    errorNumber: r.error_number,
    errorMessage: r.error_message,
    errorDetail: r.error_detail,
    abandonReason: (r.abandon_reason ?? null) as AbandonReason | null,
    ...finalOf(r),
  };
}

/** the task's max attempts, and whether this attempt made it dead (its last attempt, the task dead) */
function finalOf(r: LogRow): Pick<AttemptView, 'maxAttempts' | 'final'> {
  if (r.task_max_attempts === undefined || r.task_max_attempts === null) return {};
  const ended = r.outcome !== 'running' && r.outcome !== 'succeeded';
  return { maxAttempts: r.task_max_attempts, final: ended && r.task_status === 'dead' && r.task_attempts === r.attempt };
}

export function queueSettings(r: QueueRow): QueueSettings {
  return {
    name: r.name,
    concurrencyLimit: r.concurrency_limit,
    paused: r.paused === 1,
    maxAttempts: r.max_attempts,
    timeoutMs: r.timeout_ms,
    backoffMs: r.backoff_ms,
  };
}

/** A row of the ExecutionStatus view: an attempt running now. */
export interface StatusRow {
  log_id: number;
  token: string;
  queue: string;
  kind: string;
  command: string;
  attempt: number;
  max_attempts: number;
  worker_id: string;
  session: number | null;
  token_no: number | null;
  batch_id: number | null;
  stage: number | null;
  started_at: number;
  lease_until: number | null;
  cancel_requested: number;
}

export function runningView(r: StatusRow): RunningView {
  return {
    attemptId: r.log_id,
    token: r.token,
    queue: r.queue,
    kind: r.kind as TaskKind,
    command: r.command,
    attempt: r.attempt,
    maxAttempts: r.max_attempts,
    workerId: r.worker_id,
    session: r.session,
    tokenNo: r.token_no,
    batchId: r.batch_id,
    stage: r.stage,
    startedAt: new Date(r.started_at),
    leaseUntil: r.lease_until === null ? null : new Date(r.lease_until),
    cancelRequested: r.cancel_requested === 1,
  };
}

export interface WorkerRow {
  worker_id: string;
  host: string;
  pid: number;
  role: string;
  session: number;
  login_time: number;
  started_at: number;
  heartbeat_at: number;
  state: string;
  /** JSON array, or NULL: every queue */
  queues: string | null;
}

export function workerView(r: WorkerRow, currentTask: WorkerView['currentTask']): WorkerView {
  return {
    workerId: r.worker_id,
    host: r.host,
    pid: r.pid,
    role: r.role,
    session: r.session,
    loginTime: new Date(r.login_time),
    startedAt: new Date(r.started_at),
    heartbeatAt: new Date(r.heartbeat_at),
    state: r.state as WorkerState,
    currentTask,
    queues: workerQueuesOf(r.queues),
  };
}

export interface MetricRow {
  sec: number;
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  latency_sum: number;
  latency_max: number;
  depth: number | null;
}

export function metricPoint(r: MetricRow): MetricPoint {
  return {
    at: new Date(r.sec * 1000),
    enqueued: r.enqueued,
    started: r.started,
    succeeded: r.succeeded,
    failed: r.failed,
    latencySumMs: r.latency_sum,
    latencyMaxMs: r.latency_max,
    depth: r.depth,
  };
}

/** `%text%` for LIKE … ESCAPE '\\' */
export function likePattern(text: string): string {
  return '%' + text.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}
