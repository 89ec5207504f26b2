// Schedules on SQL Server: definitions, reads with their recent fires, and the fires themselves. A
// check (fireDue) reads the due schedules with the server's clock, plans each with the engine's rules
// (lib/engine/schedules.ts) and applies each plan with FIRE: one transaction that advances the schedule
// (compare-and-set) and inserts its tasks, unique per (schedule, tick) — see sql/schedules.ts.
import { planFires } from '../../lib/engine/schedules';
import type { EnqueueResult, FireReport, MisfirePolicy, OverlapPolicy, ScheduleRecord, ScheduleView } from '../../lib/engine/types';
import { sql, type Param, type Shared } from './connection';
import { serverMessage } from './errors';
import { type FireRow, isoUtc, scheduleFire, type ScheduleRow, scheduleView, toJson, token } from './rows';
import * as S from './sql/schedules';
import type { CommandPort, FireTrace, MaintenancePort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import { auditedCommand } from './audit';
import { newToken } from './tokens';

const NAME = sql.NVarChar(64);

function views(sets: unknown): ScheduleView[] {
  const [rows = [], fires = []] = sets as [ScheduleRow[]?, FireRow[]?];
  const byName = new Map<string, FireRow[]>();
  for (const f of fires) {
    const list = byName.get(f.name);
    if (list) list.push(f);
    else byName.set(f.name, [f]);
  }
  return rows.map((r) => scheduleView(r, (byName.get(r.name) ?? []).map(scheduleFire)));
}

const limitParam = (n: number): Param => ['limit', sql.Int, Math.max(0, Math.min(1000, Math.floor(n)))];

export async function listSchedules(shared: Shared, recent: number): Promise<ScheduleView[]> {
  const r = await shared.query(S.LIST_SCHEDULES, [limitParam(recent)]);
  return views(r.recordsets);
}

export async function getSchedule(shared: Shared, name: string, recent: number): Promise<ScheduleView | null> {
  const r = await shared.query(S.GET_SCHEDULE, [['name', NAME, name], limitParam(recent)]);
  return views(r.recordsets)[0] ?? null;
}

function definition(s: ScheduleRecord, by: string): Param[] {
  return [
    ['name', NAME, s.name],
    ['cron', sql.NVarChar(200), s.cron],
    ['timezone', sql.NVarChar(64), s.timezone],
    ['kind', sql.VarChar(10), s.kind],
    ['command', sql.NVarChar(sql.MAX), s.command],
    ['payload', sql.NVarChar(sql.MAX), toJson(s.payload)],
    ['queue', NAME, s.queue],
    ['priority', sql.Int, s.priority],
    ['max_attempts', sql.Int, s.maxAttempts],
    ['timeout_ms', sql.Int, s.timeoutMs],
    ['enabled', sql.Bit, s.enabled],
    ['misfire', sql.VarChar(10), s.misfire],
    ['overlap', sql.VarChar(16), s.overlap],
    ['source', sql.VarChar(10), s.source],
    ['declared', sql.Bit, s.declared],
    ['by', sql.NVarChar(200), by.slice(0, 200)],
  ];
}

const duplicate = (err: unknown) => {
  const n = serverMessage(err).number;
  return n === 2601 || n === 2627;
};

/** The server's clock. */
export async function serverClock(shared: Shared): Promise<Date> {
  const r = await shared.query<{ now: Date }>(S.SERVER_CLOCK, []);
  return r.recordset[0]!.now;
}

export async function createSchedule(
  shared: Shared,
  s: ScheduleRecord,
  nextFireAt: Date | null,
  by: string,
): Promise<'created' | 'exists'> {
  try {
    const r = await shared.write<{ created: number }>(S.CREATE_SCHEDULE, [
      ...definition(s, by),
      ['next_fire_at', sql.DateTime2(3), nextFireAt],
    ]);
    return r.recordset[0]?.created === 1 ? 'created' : 'exists';
  } catch (err) {
    if (duplicate(err)) return 'exists';
    throw err;
  }
}

export async function updateSchedule(
  shared: Shared,
  name: string,
  s: ScheduleRecord,
  version: number,
  nextFireAt: Date | null | undefined,
  by: string,
): Promise<'updated' | 'not_found' | 'conflict'> {
  const r = await shared.write<{ updated: number; present: number }>(S.UPDATE_SCHEDULE, [
    ...definition({ ...s, name }, by),
    ['version', sql.Int, version],
    ['set_next', sql.Bit, nextFireAt !== undefined],
    ['next_fire_at', sql.DateTime2(3), nextFireAt ?? null],
  ]);
  const row = r.recordset[0];
  if (row?.updated === 1) return 'updated';
  return row?.present === 1 ? 'conflict' : 'not_found';
}

export async function deleteSchedule(shared: Shared, name: string): Promise<'deleted' | 'not_found'> {
  const r = await shared.write<{ deleted: number }>(S.DELETE_SCHEDULE, [['name', NAME, name]]);
  return r.recordset[0]?.deleted === 1 ? 'deleted' : 'not_found';
}

export async function runSchedule(shared: Shared, name: string, by: string): Promise<EnqueueResult | null> {
  const t = newToken();
  const r = await shared.write<{ applied: number }>(S.RUN_SCHEDULE, [
    ['name', NAME, name],
    ['token', sql.UniqueIdentifier, t],
    ['caller', sql.NVarChar(200), by.slice(0, 200)],
  ]);
  const applied = (r.recordsets as unknown as { applied: number }[][]).at(-1)?.[0]?.applied === 1;
  if (!applied) return null;
  shared.wake();
  return { token: t, created: true };
}

type DueRow = ScheduleRow & { now: Date; previous_active: number };

/** One check of every due schedule (MaintenancePort.fireDue); `at` replaces the server's clock (tests). */
export async function fireDue(shared: Shared, at?: Date, traceFire?: FireTrace): Promise<FireReport[]> {
  const due = await shared.query<DueRow>(S.DUE_SCHEDULES, [['at', sql.DateTime2(3), at ?? null]]);
  const out: FireReport[] = [];
  for (const r of due.recordset) {
    const plan = planFires(
      {
        cron: r.cron,
        timezone: r.timezone,
        misfire: r.misfire as MisfirePolicy,
        overlap: r.overlap as OverlapPolicy,
        nextFireAt: r.next_fire_at!,
      },
      r.now,
      r.previous_active === 1,
    );
    let fires = plan.fires.map((fireAt, ord) => ({ ord, token: newToken(), fireAt }));
    let applied = false;
    const trace = fires.length && traceFire ? traceFire({ schedule: r.name, queue: r.queue, count: fires.length }) : null;
    try {
      const w = await shared.write<{ applied: number }>(S.FIRE, [
        ['name', NAME, r.name],
        ['version', sql.Int, r.version],
        ['expected', sql.DateTime2(3), r.next_fire_at],
        ['next', sql.DateTime2(3), plan.next],
        ['fires', sql.NVarChar(sql.MAX), JSON.stringify(fires.map((f) => ({ ...f, fireAt: isoUtc(f.fireAt) })))],
        ['caller', sql.NVarChar(200), 'schedule'],
        ['trace_parent', sql.VarChar(55), trace?.traceparent ?? null],
        ['trace_state', sql.VarChar(512), trace?.tracestate ?? null],
      ]);
      const sets = w.recordsets as unknown as [{ applied: number }[], { token: string }[]];
      applied = sets[0]?.[0]?.applied === 1;
      const inserted = new Set((sets[1] ?? []).map((x) => token(x.token)));
      fires = fires.filter((f) => inserted.has(f.token));
    } catch (err) {
      // another process fired this tick first: nothing was written here
      if (!duplicate(err)) throw err;
    }
    if (!applied) continue;
    out.push({
      schedule: r.name,
      fired: fires.map((f) => ({ token: f.token, fireAt: f.fireAt })),
      missed: plan.missed + (plan.missedSince ? 1 : 0),
      overlapped: plan.overlapped,
      nextFireAt: plan.next,
    });
  }
  if (out.some((r) => r.fired.length)) shared.wake();
  return out;
}

/** this module's part of the MaintenancePort (store.ts binds it to the store's Shared) */
export const maintenanceSlice = { fireDue } satisfies Slice<Shared, MaintenancePort>;

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = {
  createSchedule: auditedCommand(createSchedule, 3),
  updateSchedule: auditedCommand(updateSchedule, 5),
  deleteSchedule: auditedCommand(deleteSchedule, 1),
  runSchedule: auditedCommand(runSchedule, 2),
} satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listSchedules, getSchedule, clock: serverClock } satisfies Slice<Shared, ReadModel>;
