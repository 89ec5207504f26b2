// Row shapes as the driver returns them (bigint as string, uniqueidentifier upper-case, bit as
// boolean, datetime2 as Date) and their mapping to the engine's types.
import type {
  AbandonReason,
  AttemptView,
  ClaimedTask,
  LiveRequestState,
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

export type Id = string | number;

export const id = (v: Id | null | undefined): number => Number(v);
export const token = (v: string): string => v.toLowerCase();
export const parseJson = (text: string | null | undefined): unknown => (text === null || text === undefined ? null : JSON.parse(text));
export const toJson = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/** A task token in the form the engine hands out; anything else names no task. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Milliseconds as an int parameter (0 … 2^31-1). */
export const intMs = (n: number): number => Math.min(2_147_483_647, Math.max(0, Math.round(n)));

/** `%text%` for LIKE … ESCAPE '\': the escape character, %, _ and [ are literal. */
export function likePattern(text: string): string {
  return '%' + text.replace(/[\\%_[]/g, (c) => '\\' + c) + '%';
}

/** A UTC instant as the ISO text OPENJSON converts to datetime2(3) exactly (no zone suffix). */
export function isoUtc(d: Date): string {
  return d.toISOString().slice(0, 23);
}

export interface TaskRow {
  id: Id;
  token: string;
  queue: string;
  kind: string;
  command: string;
  payload: string | null;
  status: string;
  priority: number;
  run_after: Date;
  attempts: number;
  max_attempts: number;
  timeout_ms: number | null;
  dedup_key: string | null;
  caller: string | null;
  batch_id: Id | null;
  stage: number | null;
  lease_until: Date | null;
  worker_id: string | null;
  cancel_requested: boolean;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  error_number: number | null;
  error_message: string | null;
  error_detail: string | null;
  result: string | null;
  /** set on a task a schedule fired (absent where a query does not select them) */
  schedule_name?: string | null;
  schedule_fire_at?: Date | null;
}

export function taskView(r: TaskRow): TaskView {
  return {
    id: id(r.id),
    token: token(r.token),
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
    batchId: r.batch_id === null ? null : id(r.batch_id),
    stage: r.stage,
    runAfter: r.run_after,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    leaseUntil: r.lease_until,
    workerId: r.worker_id,
    cancelRequested: Boolean(r.cancel_requested),
    result: parseJson(r.result),
    lastError: r.error_message === null ? null : { number: r.error_number, message: r.error_message, detail: r.error_detail },
    schedule: r.schedule_name ? { name: r.schedule_name, fireAt: r.schedule_fire_at ?? null } : null,
  };
}

export interface LogRow {
  id: Id;
  task_id: Id;
  token: string;
  attempt: number;
  queue: string;
  kind: string;
  command: string;
  worker_id: string | null;
  session: number | null;
  token_no: number | null;
  batch_id: Id | null;
  stage: number | null;
  started_at: Date;
  ended_at: Date | null;
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

export function attemptView(r: LogRow): AttemptView {
  return {
    id: id(r.id),
    token: token(r.token),
    queue: r.queue,
    kind: r.kind as TaskKind,
    command: r.command,
    attempt: r.attempt,
    workerId: r.worker_id,
    session: r.session,
    tokenNo: r.token_no,
    batchId: r.batch_id === null ? null : id(r.batch_id),
    stage: r.stage,
    startedAt: r.started_at,
    endedAt: r.ended_at,
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

export interface QueueRow {
  name: string;
  concurrency_limit: number | null;
  paused: boolean;
  max_attempts: number;
  timeout_ms: number | null;
  backoff_ms: number;
}

export function queueSettings(r: QueueRow): QueueSettings {
  return {
    name: r.name,
    concurrencyLimit: r.concurrency_limit,
    paused: Boolean(r.paused),
    maxAttempts: r.max_attempts,
    timeoutMs: r.timeout_ms,
    backoffMs: r.backoff_ms,
  };
}

export interface ClaimRow {
  id: Id;
  token: string;
  queue: string;
  kind: string;
  command: string;
  payload: string | null;
  priority: number;
  attempts: number;
  max_attempts: number;
  timeout_ms: number | null;
  created_at: Date;
  run_after: Date;
  started_at: Date;
  token_no: number | null;
  batch_id: Id | null;
  stage: number | null;
  backoff_ms: number;
  session: number;
  served_stamp: Id;
}

export function claimedTask(r: ClaimRow, workerId: string): ClaimedTask {
  return {
    id: id(r.id),
    token: token(r.token),
    queue: r.queue,
    kind: r.kind as TaskKind,
    command: r.command,
    payload: parseJson(r.payload),
    priority: r.priority,
    attempt: r.attempts,
    maxAttempts: r.max_attempts,
    timeoutMs: r.timeout_ms,
    backoffMs: r.backoff_ms,
    workerId,
    session: r.session,
    createdAt: r.created_at,
    runAfter: r.run_after,
    startedAt: r.started_at,
  };
}

export interface StatusRow {
  log_id: Id;
  task_id: Id;
  token: string;
  queue: string;
  kind: string;
  command: string;
  attempt: number;
  max_attempts: number;
  worker_id: string;
  session: number | null;
  token_no: number | null;
  batch_id: Id | null;
  stage: number | null;
  started_at: Date;
  lease_until: Date | null;
  cancel_requested: boolean;
}

export interface LiveRow extends StatusRow {
  live_session: number | null;
  session_status: string | null;
  session_cpu: number | null;
  session_open_tran: number | null;
  request_status: string | null;
  request_command: string | null;
  wait_type: string | null;
  wait_time: number | null;
  blocking_session_id: number | null;
  request_cpu: number | null;
  percent_complete: number | null;
  request_open_tran: number | null;
}

export function runningView(r: StatusRow): RunningView {
  return {
    attemptId: id(r.log_id),
    token: token(r.token),
    queue: r.queue,
    kind: r.kind as TaskKind,
    command: r.command,
    attempt: r.attempt,
    maxAttempts: r.max_attempts,
    workerId: r.worker_id,
    session: r.session,
    tokenNo: r.token_no,
    batchId: r.batch_id === null ? null : id(r.batch_id),
    stage: r.stage,
    startedAt: r.started_at,
    leaseUntil: r.lease_until,
    cancelRequested: Boolean(r.cancel_requested),
  };
}

/** The server's view of the session running an attempt; null where the session is not visible. */
export function liveState(r: LiveRow): LiveRequestState | null {
  if (r.live_session === null || r.live_session === undefined) return null;
  const hasRequest = r.request_status !== null && r.request_status !== undefined;
  return {
    status: (hasRequest ? r.request_status : r.session_status)?.trim() ?? null,
    command: r.request_command?.trim() ?? null,
    waitType: r.wait_type,
    waitTimeMs: r.wait_time,
    blockingSession: r.blocking_session_id ? r.blocking_session_id : null,
    cpuMs: hasRequest ? r.request_cpu : r.session_cpu,
    percentComplete: hasRequest && r.percent_complete !== null ? Number(r.percent_complete) : null,
    openTransactions: hasRequest ? r.request_open_tran : r.session_open_tran,
  };
}

export interface WorkerRow {
  worker_id: string;
  host: string;
  pid: number;
  role: string;
  session: number;
  login_time: Date;
  started_at: Date;
  heartbeat_at: Date;
  state: string;
  /** JSON array, or NULL: every queue */
  queues: string | null;
}

export function workerView(r: WorkerRow, current: WorkerView['currentTask']): WorkerView {
  return {
    workerId: r.worker_id,
    host: r.host,
    pid: r.pid,
    role: r.role,
    session: r.session,
    loginTime: r.login_time,
    startedAt: r.started_at,
    heartbeatAt: r.heartbeat_at,
    state: r.state as WorkerState,
    currentTask: current,
    queues: workerQueuesOf(r.queues),
  };
}

export interface MetricRow {
  sec: Id;
  enqueued: number;
  started: number;
  succeeded: number;
  failed: number;
  latency_sum: Id;
  latency_max: number;
  depth: number | null;
}

export function metricPoint(r: MetricRow): MetricPoint {
  return {
    at: new Date(id(r.sec) * 1000),
    enqueued: r.enqueued,
    started: r.started,
    succeeded: r.succeeded,
    failed: r.failed,
    latencySumMs: id(r.latency_sum),
    latencyMaxMs: r.latency_max,
    depth: r.depth,
  };
}
