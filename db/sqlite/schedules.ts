// Schedules on SQLite: definitions, reads with their recent fires, and the fires themselves. A check
// (fireDue) reads the due schedules, plans each with the engine's rules (lib/engine/schedules.ts) and
// inserts the fires and advances the schedules, all in one BEGIN IMMEDIATE transaction: processes
// checking at once take turns, and each sees what the one before it fired. The unique index on
// (schedule_name, schedule_fire_at) makes a second task for a tick impossible whatever happens.
import type { AuditWrite, CommandPort, FireTrace, MaintenancePort, ReadModel } from '../../lib/engine/ports';
import { auditVia } from '../../lib/engine/audit';
import { ValidationError } from '../../lib/engine/errors';
import { taskKey } from '../../lib/engine/keys';
import { planFires } from '../../lib/engine/schedules';
import type {
  TraceContext,
  EnqueueResult,
  FireReport,
  MisfirePolicy,
  OverlapPolicy,
  ScheduleFire,
  ScheduleRecord,
  ScheduleView,
} from '../../lib/engine/types';
import { read, type Db, type Shared } from './connection';
import { ensureQueue } from './queues';
import { type FireRow, parseJson, scheduleFire, type ScheduleRow, scheduleView, toJson } from './rows';
import * as S from './sql/schedules';
import { stmt } from './stmt';
import type { Tally } from './tally';
import type { Slice } from '../shared/bind';
import { newToken } from './tokens';

function recentFires(db: Db, name: string, n: number): ScheduleFire[] {
  if (n <= 0) return [];
  return (stmt(db, S.RECENT_FIRES).all(name, n) as FireRow[]).map(scheduleFire);
}

export function listSchedules(shared: Shared, recent: number): Promise<ScheduleView[]> {
  return read(() => {
    const rows = stmt(shared.db, S.LIST_SCHEDULES).all() as ScheduleRow[];
    return rows.map((r) => scheduleView(r, recentFires(shared.db, r.name, recent)));
  });
}

export function getSchedule(shared: Shared, name: string, recent: number): Promise<ScheduleView | null> {
  return read(() => {
    const r = stmt(shared.db, S.GET_SCHEDULE).get(name) as ScheduleRow | undefined;
    return r ? scheduleView(r, recentFires(shared.db, r.name, recent)) : null;
  });
}

/** The definition's columns, in the order INSERT_SCHEDULE and UPDATE_SCHEDULE bind them after the name. */
function definition(s: ScheduleRecord): unknown[] {
  return [
    s.cron,
    s.timezone,
    s.kind,
    s.command,
    toJson(s.payload),
    s.queue,
    s.priority,
    s.maxAttempts,
    s.timeoutMs,
    s.enabled ? 1 : 0,
    s.misfire,
    s.overlap,
  ];
}

export async function createSchedule(
  shared: Shared,
  s: ScheduleRecord,
  nextFireAt: Date | null,
  by: string,
  audit?: AuditWrite<'created' | 'exists'>,
): Promise<'created' | 'exists'> {
  return shared.tx((_t, now) => {
    const r = stmt(shared.db, S.INSERT_SCHEDULE).run(
      s.name,
      ...definition(s),
      nextFireAt?.getTime() ?? null,
      s.source,
      s.declared ? 1 : 0,
      by,
      now,
      by,
      now,
    );
    return r.changes === 1 ? 'created' : 'exists';
  }, audit);
}

export async function updateSchedule(
  shared: Shared,
  name: string,
  s: ScheduleRecord,
  version: number,
  nextFireAt: Date | null | undefined,
  by: string,
  audit?: AuditWrite<'updated' | 'not_found' | 'conflict'>,
): Promise<'updated' | 'not_found' | 'conflict'> {
  return shared.tx((_t, now) => {
    const r = stmt(shared.db, S.UPDATE_SCHEDULE).run(
      ...definition(s),
      s.source,
      s.declared ? 1 : 0,
      by,
      now,
      nextFireAt === undefined ? 0 : 1,
      nextFireAt?.getTime() ?? null,
      name,
      version,
    );
    if (r.changes === 1) return 'updated';
    return stmt(shared.db, S.GET_SCHEDULE).get(name) ? 'conflict' : 'not_found';
  }, audit);
}

export async function deleteSchedule(
  shared: Shared,
  name: string,
  audit?: AuditWrite<'deleted' | 'not_found'>,
): Promise<'deleted' | 'not_found'> {
  return shared.tx(() => (stmt(shared.db, S.DELETE_SCHEDULE).run(name).changes === 1 ? 'deleted' : 'not_found'), audit);
}

/**
 * The concurrency key of a fire, derived by its queue's keyFrom. A payload whose key is too long fires with no
 * key: refusing it would roll back the fires of every schedule due in the same check, again at every check.
 */
function fireKey(payload: string | null, keyFrom: string | null): string | null {
  try {
    return taskKey(null, parseJson(payload), keyFrom);
  } catch (e) {
    if (e instanceof ValidationError) return null;
    throw e;
  }
}

/** Insert the task of one fire; null when this tick was fired already. */
function insertFire(
  db: Db,
  r: ScheduleRow,
  fireAt: number | null,
  caller: string,
  tally: Tally,
  now: number,
  trace: TraceContext | null = null,
): string | null {
  const q = ensureQueue(db, r.queue, now);
  const token = newToken(now);
  const done = stmt(db, S.INSERT_FIRE).run(
    token,
    r.queue,
    r.kind,
    r.command,
    r.payload,
    r.priority,
    now,
    r.max_attempts ?? q.max_attempts,
    r.timeout_ms ?? q.timeout_ms,
    fireKey(r.payload, q.key_from),
    caller,
    r.name,
    fireAt,
    now,
    trace?.traceparent ?? null,
    trace?.tracestate ?? null,
  );
  if (done.changes !== 1) return null;
  tally.task({ queue: r.queue, batch_id: null, stage: null }, null, 'pending');
  tally.metric(now, 'enqueued');
  tally.historyEnqueued(now, r.queue, r.command);
  return token;
}

export async function runSchedule(
  shared: Shared,
  name: string,
  by: string,
  audit?: AuditWrite<EnqueueResult | null>,
): Promise<EnqueueResult | null> {
  const token = await shared.tx(
    (tally, now) => {
      const r = stmt(shared.db, S.GET_SCHEDULE).get(name) as ScheduleRow | undefined;
      if (!r) return null;
      const t = insertFire(shared.db, r, null, by, tally, now);
      if (t) stmt(shared.db, S.RECORD_RUN).run(now, t, name);
      return t;
    },
    auditVia(audit, (t: string | null) => (t === null ? null : { token: t, created: true })),
  );
  if (token === null) return null;
  shared.wake();
  return { token, created: true };
}

/** One check of every due schedule (MaintenancePort.fireDue); `at` replaces the clock for the plans (tests). */
export async function fireDue(shared: Shared, at?: Date, traceFire?: FireTrace): Promise<FireReport[]> {
  const db = shared.db;
  // nothing due (the usual case, checked every second): no write transaction, no write lock
  if (!(await read(() => stmt(db, S.ANY_DUE).get((at ?? new Date()).getTime())))) return [];
  const reports = await shared.tx((tally, now) => {
    const when = at ?? new Date(now);
    const out: FireReport[] = [];
    for (const r of stmt(db, S.DUE_SCHEDULES).all(when.getTime()) as ScheduleRow[]) {
      const previousActive = r.last_token !== null && stmt(db, S.TASK_ACTIVE).get(r.last_token) !== undefined;
      const plan = planFires(
        {
          cron: r.cron,
          timezone: r.timezone,
          misfire: r.misfire as MisfirePolicy,
          overlap: r.overlap as OverlapPolicy,
          nextFireAt: new Date(r.next_fire_at!),
        },
        when,
        previousActive,
      );
      const fired: FireReport['fired'] = [];
      const trace = plan.fires.length && traceFire ? traceFire({ schedule: r.name, queue: r.queue, count: plan.fires.length }) : null;
      for (const tick of plan.fires) {
        const token = insertFire(db, r, tick.getTime(), 'schedule', tally, now, trace);
        if (token) fired.push({ token, fireAt: tick });
      }
      const last = fired[fired.length - 1];
      stmt(db, S.ADVANCE).run(plan.next?.getTime() ?? null, last?.fireAt.getTime() ?? null, last?.token ?? null, r.name);
      out.push({
        schedule: r.name,
        fired,
        missed: plan.missed + (plan.missedSince ? 1 : 0),
        overlapped: plan.overlapped,
        nextFireAt: plan.next,
      });
    }
    return out;
  });
  if (reports.some((r) => r.fired.length)) shared.wake();
  return reports;
}

/** this module's part of the MaintenancePort (store.ts binds it to the store's Shared) */
export const maintenanceSlice = { fireDue } satisfies Slice<Shared, MaintenancePort>;

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { createSchedule, updateSchedule, deleteSchedule, runSchedule } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listSchedules, getSchedule } satisfies Slice<Shared, ReadModel>;
