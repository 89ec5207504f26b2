// The public JSON shapes (CLI --json, HTTP API). Times are ISO-8601 with milliseconds.
import type { Dialect } from '../engine/ports';
import { describeCron } from '../engine/schedules';
import type {
  AttemptView,
  DoctorCheck,
  FailureGroup,
  KeyUsage,
  ProcedureParameter,
  TaskKind,
  BatchView,
  MetricPoint,
  QueueChange,
  QueueCounts,
  QueueView,
  RunningView,
  ScheduleFire,
  ScheduleView,
  TaskSchedule,
  TaskDetail,
  TaskView,
  TokenView,
  WorkerView,
  EventDetail,
  EventView,
  StepView,
} from '../engine/types';
import { NO_TIMEOUT } from '../engine/types';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function attemptJson(a: AttemptView) {
  return {
    id: a.id,
    token: a.token,
    queue: a.queue,
    kind: a.kind,
    command: a.command,
    attempt: a.attempt,
    workerId: a.workerId,
    session: a.session,
    tokenNo: a.tokenNo,
    batchId: a.batchId,
    stage: a.stage,
    startedAt: iso(a.startedAt),
    endedAt: iso(a.endedAt),
    outcome: a.outcome,
    errorNumber: a.errorNumber,
    errorMessage: a.errorMessage,
    errorDetail: a.errorDetail,
    /** abandoned by the rescue: lease_lost (its worker was alive) or worker_lost (crashed, killed, cut off) */
    abandonReason: a.abandonReason,
    /** the trace id of the attempt's span (OpenTelemetry), when it was traced */
    traceId: a.traceId ?? null,
    /** the task's max attempts (null where the read did not join it) */
    maxAttempts: a.maxAttempts ?? null,
    /** this attempt made its task dead */
    final: a.final ?? false,
  };
}

export function taskJson(t: TaskView) {
  return {
    token: t.token,
    status: t.status,
    queue: t.queue,
    kind: t.kind,
    command: t.command,
    payload: t.payload,
    priority: t.priority,
    attempts: t.attempts,
    maxAttempts: t.maxAttempts,
    timeoutMs: t.timeoutMs,
    dedupKey: t.dedupKey,
    concurrencyKey: t.concurrencyKey,
    caller: t.caller,
    batchId: t.batchId,
    stage: t.stage,
    runAfter: iso(t.runAfter),
    createdAt: iso(t.createdAt),
    startedAt: iso(t.startedAt),
    finishedAt: iso(t.finishedAt),
    workerId: t.workerId,
    cancelRequested: t.cancelRequested,
    result: t.result,
    lastError: t.lastError,
    schedule: scheduleRefJson(t.schedule, t.createdAt),
    flowId: t.flowId,
    flowNode: t.flowNode,
    parentCount: t.parentCount,
    parentsLeft: t.parentsLeft,
    /** a waiting task its durable handler suspended: `sleep` or `event`; null otherwise */
    suspended: t.suspended,
    /** attempts that ended suspended (not failures) */
    suspensions: t.suspensions,
    /** the trace id it was enqueued in (OpenTelemetry): its first attempt's span is in that trace */
    traceId: t.traceId ?? null,
  };
}

/** A durable handler's step on the task's page (a large result as a preview with its size). */
export function stepJson(s: StepView, lastAttempt: number) {
  return {
    seq: s.seq,
    name: s.name,
    kind: s.kind,
    status: s.status,
    attempt: s.attempt,
    tries: s.tries,
    /** later attempts that returned its recorded result without running it */
    replays: s.status === 'succeeded' ? Math.max(0, lastAttempt - s.attempt) : 0,
    startedAt: iso(s.startedAt),
    endedAt: iso(s.endedAt),
    result: s.result,
    resultPreview: s.resultPreview,
    resultBytes: s.resultBytes,
    error: s.error,
    /** a sleep's wake time; an event wait's timeout (null: none) */
    wakeAt: s.wakeAt && s.wakeAt.getTime() < NO_TIMEOUT.getTime() ? iso(s.wakeAt) : null,
    event: s.event,
    match: s.match,
    eventId: s.eventId,
  };
}

export function eventJson(e: EventView) {
  return { id: e.id, name: e.name, payload: e.payload, sentAt: iso(e.sentAt), caller: e.caller, resumed: e.resumed };
}

export function eventDetailJson(e: EventDetail) {
  return { ...eventJson(e), tasks: e.tasks };
}

/**
 * `schedule: {name, fireAt, manual}` on a task a schedule fired: fireAt is the tick it was fired for; a
 * manual run (run now) has no tick — fireAt is when it was run, and manual is true.
 */
function scheduleRefJson(s: TaskSchedule | null, createdAt: Date) {
  return s && { name: s.name, fireAt: iso(s.fireAt ?? createdAt), manual: s.fireAt === null };
}

/** `readpast status TOKEN --json` and `GET /api/tasks/{token}` */
export function statusJson(t: TaskDetail) {
  return { ...taskJson(t), history: t.history.map(attemptJson), parents: t.parents, children: t.children, childCount: t.childCount };
}

export type StatusJson = ReturnType<typeof statusJson>;

export function workerJson(w: WorkerView, now = Date.now()) {
  return {
    workerId: w.workerId,
    host: w.host,
    pid: w.pid,
    role: w.role,
    session: w.session,
    loginTime: iso(w.loginTime),
    startedAt: iso(w.startedAt),
    heartbeatAt: iso(w.heartbeatAt),
    heartbeatAgeMs: Math.max(0, now - w.heartbeatAt.getTime()),
    state: w.state,
    /** the only queues it claims from; null: every queue */
    queues: w.queues,
    currentTask: w.currentTask && { ...w.currentTask, startedAt: iso(w.currentTask.startedAt) },
  };
}

/**
 * The counts every page shows. `totals.running` is what ExecutionStatus says runs now — the workers' current
 * attempts, read with the workers themselves, so running ≤ the workers that exist and the Overview's "N running ·
 * M of K workers busy" and the nav badge are one number; `totals.claimed` the tasks pools claimed ahead (not started).
 */
export function statsJson(queues: QueueCounts[], workers: WorkerView[], now = Date.now()) {
  const totals = { waiting: 0, pending: 0, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 };
  for (const q of queues) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += q[k];
  totals.running = workers.filter((w) => w.currentTask !== null).length;
  return { queues, totals, workers: workers.map((w) => workerJson(w, now)) };
}

/** Tasks claimed ahead (not started), by the worker that claimed them: the Running page's own small section. */
export function claimedJson(tasks: TaskView[]) {
  const by = new Map<string, { workerId: string; tasks: number; queues: string[] }>();
  for (const t of tasks) {
    const id = t.workerId ?? '?';
    let c = by.get(id);
    if (!c) by.set(id, (c = { workerId: id, tasks: 0, queues: [] }));
    c.tasks++;
    if (!c.queues.includes(t.queue)) c.queues.push(t.queue);
  }
  return [...by.values()].sort((a, b) => b.tasks - a.tasks || a.workerId.localeCompare(b.workerId));
}

export function runningJson(r: RunningView) {
  return {
    ...r,
    startedAt: iso(r.startedAt),
    leaseUntil: iso(r.leaseUntil),
    live: r.live ?? null,
    progress: r.progress ? { percent: r.progress.percent, message: r.progress.message, at: r.progress.at.toISOString() } : null,
  };
}

/** Per-second series from `since` to `until`, seconds without activity filled with zeros. */
export function metricsJson(points: MetricPoint[], since: Date, until: Date) {
  const bySec = new Map(points.map((p) => [Math.floor(p.at.getTime() / 1000), p]));
  const out = [];
  let depth: number | null = null;
  for (let s = Math.floor(since.getTime() / 1000); s <= Math.floor(until.getTime() / 1000); s++) {
    const p = bySec.get(s);
    if (p?.depth != null) depth = p.depth;
    out.push({
      at: new Date(s * 1000).toISOString(),
      enqueued: p?.enqueued ?? 0,
      started: p?.started ?? 0,
      succeeded: p?.succeeded ?? 0,
      failed: p?.failed ?? 0,
      latencyAvgMs: p && p.started > 0 ? Math.round((p.latencySumMs / p.started) * 10) / 10 : null,
      latencyMaxMs: p && p.started > 0 ? p.latencyMaxMs : null,
      depth,
    });
  }
  return out;
}

/** A queue with its throttle: the rate window now (`nextAt` ISO) and its top concurrency keys (when read). */
export function queueJson(q: QueueView, keys: KeyUsage[] = []) {
  return { ...q, rate: q.rate && { ...q.rate, nextAt: iso(q.rate.nextAt) }, keys: keys.map((k) => ({ ...k })) };
}

export function queueChangeJson(c: QueueChange) {
  return { ...c, at: iso(c.at) };
}

export function tokenJson(t: TokenView) {
  return { ...t, grantedAt: iso(t.grantedAt) };
}

export function batchJson(b: BatchView) {
  const sum = (k: 'total' | 'pending' | 'running' | 'succeeded' | 'dead' | 'cancelled') => b.stages.reduce((n, s) => n + s[k], 0);
  return {
    ...b,
    createdAt: iso(b.createdAt),
    releasedAt: iso(b.releasedAt),
    completedAt: iso(b.completedAt),
    totals: {
      total: sum('total'),
      pending: sum('pending'),
      running: sum('running'),
      succeeded: sum('succeeded'),
      dead: sum('dead'),
      cancelled: sum('cancelled'),
    },
    stages: b.stages.map((s) => ({ ...s, firstStartedAt: iso(s.firstStartedAt), lastEndedAt: iso(s.lastEndedAt) })),
  };
}

export type BatchJson = ReturnType<typeof batchJson>;

export function failureGroupJson(g: FailureGroup) {
  return { ...g, lastAt: g.lastAt.toISOString() };
}

/** `GET /api/handlers`: handler names that can be enqueued, and what this database can run */
export interface HandlersJson {
  handlers: string[];
  kinds: TaskKind[];
  dialect: Dialect;
}

/** `GET /api/procedures/{name}/parameters` */
export interface ProcedureParametersJson {
  procedure: string;
  parameters: ProcedureParameter[];
}

/**
 * `readpast doctor --json`, `GET /api/doctor`: every check, and `ok` = nothing this configuration
 * needs is missing (a failing check that is not `needed` is an optional feature that will be off).
 */
export function doctorJson(dialect: Dialect | null, database: string, checks: DoctorCheck[], at = new Date()) {
  const count = (f: (c: DoctorCheck) => boolean) => checks.filter(f).length;
  return {
    dialect,
    database,
    checkedAt: at.toISOString(),
    ok: !checks.some((c) => c.needed && c.ok === false),
    summary: {
      passed: count((c) => c.ok === true),
      /** needed and failing: the doctor fails */
      failed: count((c) => c.needed && c.ok === false),
      /** optional features that are off */
      optional: count((c) => !c.needed && c.ok === false),
      /** informational or skipped */
      other: count((c) => c.ok === null),
    },
    checks: checks.map((c) => ({ id: c.id, title: c.title, ok: c.ok, detail: c.detail, remedy: c.remedy, needed: c.needed })),
  };
}

export type DoctorJson = ReturnType<typeof doctorJson>;

/** One fire of a schedule: its task, the tick (or, for a manual run, when it was run), the task's status. */
export function scheduleFireJson(f: ScheduleFire) {
  return { token: f.token, fireAt: iso(f.fireAt ?? f.createdAt)!, manual: f.fireAt === null, status: f.status };
}

/** A schedule as `schedule list --json` and `GET /api/schedules` list it: `recent` is its newest fires, newest first. */
export function scheduleJson(s: ScheduleView) {
  return {
    name: s.name,
    cron: s.cron,
    /** the expression in words */
    description: describeCron(s.cron),
    timezone: s.timezone,
    kind: s.kind,
    command: s.command,
    payload: s.payload,
    queue: s.queue,
    priority: s.priority,
    maxAttempts: s.maxAttempts,
    timeoutMs: s.timeoutMs,
    misfire: s.misfire,
    overlap: s.overlap,
    enabled: s.enabled,
    source: s.source,
    declared: s.declared,
    nextFireAt: iso(s.nextFireAt),
    lastFireAt: iso(s.lastFireAt),
    lastToken: s.lastToken,
    createdBy: s.createdBy,
    createdAt: iso(s.createdAt),
    updatedBy: s.updatedBy,
    updatedAt: iso(s.updatedAt),
    recent: s.recent.map(scheduleFireJson),
  };
}

export type ScheduleJson = ReturnType<typeof scheduleJson>;

/** `schedule show NAME --json` and `GET /api/schedules/{name}`: with the next fire times, in the schedule's zone's ticks. */
export function scheduleDetailJson(s: ScheduleView, next: Date[]) {
  return { ...scheduleJson(s), nextFires: s.enabled ? next.map((d) => d.toISOString()) : [] };
}

export type ScheduleDetailJson = ReturnType<typeof scheduleDetailJson>;

export type StepJson = ReturnType<typeof stepJson>;
export type EventJson = ReturnType<typeof eventJson>;
export type EventDetailJson = ReturnType<typeof eventDetailJson>;
