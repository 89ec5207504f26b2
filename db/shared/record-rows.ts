// Row shapes of the operators' records both stores keep — batches and their stages, schedules and their
// fires, alert rules, the audit trail, queue changes — and their one mapping to the engine's types, given
// a dialect's column converters (rows.ts). No SQL, no driver.
import type { AlertFormat, AlertKind, AlertParams, AlertRule } from '../../lib/engine/alert-types';
import { parseAuditJson } from '../../lib/engine/audit';
import type {
  AuditRecord,
  AuditSource,
  BatchStatus,
  BatchView,
  MisfirePolicy,
  OnFailure,
  OverlapPolicy,
  QueueChange,
  ScheduleFire,
  ScheduleSource,
  ScheduleView,
  StageCounts,
  TaskKind,
  TaskStatus,
} from '../../lib/engine/types';
import { parseJson, type Cols, type Converters } from './rows';

export interface BatchRow<C extends Cols> {
  id: C['bigint'];
  caller: string | null;
  max_parallel: number | null;
  on_failure: string;
  status: string;
  created_at: C['time'];
  released_at: C['time'] | null;
  completed_at: C['time'] | null;
}

export interface StageRow<C extends Cols> {
  batch_id: C['bigint'];
  stage: number;
  total: number;
  pending: number;
  running: number;
  succeeded: number;
  dead: number;
  cancelled: number;
  first_started_at: C['time'] | null;
  last_ended_at: C['time'] | null;
}

export interface ScheduleRow<C extends Cols> {
  name: string;
  cron: string;
  timezone: string;
  kind: string;
  command: string;
  payload: string | null;
  queue: string;
  priority: number;
  max_attempts: number | null;
  timeout_ms: number | null;
  enabled: C['bool'];
  misfire: string;
  overlap: string;
  next_fire_at: C['time'] | null;
  last_fire_at: C['time'] | null;
  last_token: string | null;
  source: string;
  declared: C['bool'];
  version: number;
  created_by: string;
  created_at: C['time'];
  updated_by: string;
  updated_at: C['time'];
}

/** a task a schedule fired */
export interface FireRow<C extends Cols> {
  token: string;
  schedule_fire_at: C['time'] | null;
  created_at: C['time'];
  status: string;
}

export interface RuleRow<C extends Cols> {
  id: number;
  name: string;
  kind: string;
  params: string;
  url: string;
  secret: string | null;
  format: string;
  dedup_ms: number;
  enabled: C['bool'];
  cursor_at: C['time'] | null;
  cursor_id: C['bigint'] | null;
  created_by: string;
  created_at: C['time'];
  updated_by: string;
  updated_at: C['time'];
}

export interface AuditRow<C extends Cols> {
  id: C['bigint'];
  at: C['time'];
  actor: string;
  source: string;
  action: string;
  target: string;
  before_json: string | null;
  after_json: string | null;
  n: number | null;
}

export interface ChangeRow<C extends Cols> {
  id: C['bigint'];
  queue: string;
  at: C['time'];
  changed_by: string;
  field: string;
  old_value: string;
  new_value: string;
}

function alertParams(text: string): AlertParams {
  try {
    return JSON.parse(text) as AlertParams;
  } catch {
    return {};
  }
}

/** The record mappers of one dialect. */
export function recordMappers<C extends Cols>(c: Converters<C>) {
  const timeOrNull = (v: C['time'] | null): Date | null => (v === null ? null : c.time(v));

  function stageView(s: StageRow<C>): StageCounts {
    return {
      stage: s.stage,
      total: s.total,
      pending: s.pending,
      running: s.running,
      succeeded: s.succeeded,
      dead: s.dead,
      cancelled: s.cancelled,
      firstStartedAt: timeOrNull(s.first_started_at),
      lastEndedAt: timeOrNull(s.last_ended_at),
    };
  }

  function batchView(b: BatchRow<C>, stages: StageRow<C>[]): BatchView {
    const live = stages.filter((s) => s.pending + s.running > 0);
    return {
      id: c.bigint(b.id),
      caller: b.caller,
      maxParallel: b.max_parallel,
      onFailure: b.on_failure as OnFailure,
      status: b.status as BatchStatus,
      activeStage: live.length ? Math.min(...live.map((s) => s.stage)) : null,
      createdAt: c.time(b.created_at),
      releasedAt: timeOrNull(b.released_at),
      completedAt: timeOrNull(b.completed_at),
      stages: stages.filter((s) => s.total > 0).map(stageView),
    };
  }

  function scheduleFire(f: FireRow<C>): ScheduleFire {
    return {
      token: c.token(f.token),
      fireAt: timeOrNull(f.schedule_fire_at),
      createdAt: c.time(f.created_at),
      status: f.status as TaskStatus,
    };
  }

  function scheduleView(r: ScheduleRow<C>, recent: ScheduleFire[]): ScheduleView {
    return {
      name: r.name,
      cron: r.cron,
      timezone: r.timezone,
      kind: r.kind as TaskKind,
      command: r.command,
      payload: parseJson(r.payload),
      queue: r.queue,
      priority: r.priority,
      maxAttempts: r.max_attempts,
      timeoutMs: r.timeout_ms,
      enabled: c.bool(r.enabled),
      misfire: r.misfire as MisfirePolicy,
      overlap: r.overlap as OverlapPolicy,
      source: r.source as ScheduleSource,
      declared: c.bool(r.declared),
      nextFireAt: timeOrNull(r.next_fire_at),
      lastFireAt: timeOrNull(r.last_fire_at),
      lastToken: r.last_token === null ? null : c.token(r.last_token),
      createdBy: r.created_by,
      createdAt: c.time(r.created_at),
      updatedBy: r.updated_by,
      updatedAt: c.time(r.updated_at),
      version: r.version,
      recent,
    };
  }

  function alertRule(r: RuleRow<C>): AlertRule {
    return {
      id: r.id,
      name: r.name,
      kind: r.kind as AlertKind,
      params: alertParams(r.params),
      url: r.url,
      secret: r.secret,
      format: r.format as AlertFormat,
      dedupMs: r.dedup_ms,
      enabled: c.bool(r.enabled),
      cursorAt: timeOrNull(r.cursor_at),
      cursorId: r.cursor_id === null ? null : c.bigint(r.cursor_id),
      createdBy: r.created_by,
      createdAt: c.time(r.created_at),
      updatedBy: r.updated_by,
      updatedAt: c.time(r.updated_at),
    };
  }

  function auditRecord(r: AuditRow<C>): AuditRecord {
    return {
      id: c.bigint(r.id),
      at: c.time(r.at),
      actor: r.actor,
      source: r.source as AuditSource,
      action: r.action,
      target: r.target,
      before: parseAuditJson(r.before_json),
      after: parseAuditJson(r.after_json),
      count: r.n,
    };
  }

  function queueChange(r: ChangeRow<C>): QueueChange {
    return {
      id: c.bigint(r.id),
      queue: r.queue,
      at: c.time(r.at),
      changedBy: r.changed_by,
      field: r.field as QueueChange['field'],
      oldValue: r.old_value,
      newValue: r.new_value,
    };
  }

  return { batchView, scheduleFire, scheduleView, alertRule, auditRecord, queueChange };
}
