// Schedules behind the front door: validated create / edit / pause / resume / delete / run now over
// the store's ports, the next fire times, and the sync of code-declared schedules (a handlers module's
// `schedules` export) at worker start. Readpast (readpast.ts) exposes these as its schedule methods.
import { decodeSegment, pausedFlag } from './requests';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import type { CommandPort, ReadModel } from '../engine/ports';
import { nextFireAfter, nextFires } from '../engine/schedules';
import type { ScheduleInput, ScheduleRecord, ScheduleView } from '../engine/types';
import { parseWith, queueName, validateSchedule, type EnqueueContext } from '../engine/validation';
import type { Audit } from './audit';
import { scheduleDetailJson, scheduleJson, type ScheduleDetailJson, type ScheduleJson } from './present';

/** fires listed with each schedule of a list (the dashboard's outcome strip) */
export const LIST_RECENT_FIRES = 20;
/** fires listed by `schedule show` and GET /api/schedules/{name} */
export const DETAIL_RECENT_FIRES = 50;
/** upcoming fire times shown with one schedule */
export const NEXT_FIRES_SHOWN = 5;

/** The definition fields of a schedule, as a request body names them. */
const DEFINITION = [
  'cron',
  'timezone',
  'kind',
  'command',
  'payload',
  'queue',
  'priority',
  'maxAttempts',
  'timeoutMs',
  'misfire',
  'overlap',
] as const;

export const CODE_EDIT_REFUSED =
  "is declared in code (a handlers module's `schedules` export): change it there — the next worker start would " +
  'overwrite an edit made here. Pause, resume and run now work on it.';

export interface SchedulePorts {
  commands: CommandPort;
  reads: ReadModel;
}

/** A schedule name from a URL path segment or an argument (decoded when still percent-encoded), validated as `name`. */
export function scheduleNameParam(raw: string): string {
  const name = decodeSegment(raw);
  return parseWith(queueName, name, 'name');
}

/** A view as a request body (what a PATCH is merged into): its name, definition and enabled flag. */
function asRequest(s: ScheduleInput): Record<string, unknown> {
  const body: Record<string, unknown> = { name: s.name, enabled: s.enabled };
  for (const k of DEFINITION) body[k] = s[k];
  return body;
}

const sameDefinition = (a: ScheduleInput, b: ScheduleInput) =>
  DEFINITION.every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null));

/**
 * The next fire time a change leaves: a new one when the schedule is (re-)enabled or its expression or
 * zone changed, none while disabled, and otherwise undefined — the stored one is kept (a fire may have
 * moved it meanwhile).
 */
export function nextAfterChange(before: ScheduleInput, after: ScheduleInput, now: Date): Date | null | undefined {
  if (!after.enabled) return null;
  if (!before.enabled || before.cron !== after.cron || before.timezone !== after.timezone) {
    return nextFireAfter(after.cron, after.timezone, now);
  }
  return undefined;
}

export class Schedules {
  constructor(
    private readonly ports: SchedulePorts,
    private readonly context: (opts: { allowSql?: boolean }) => EnqueueContext,
    /** records an operator's change in its own transaction (code-declared changes are not audited) */
    private readonly audit?: Audit,
  ) {}

  private async current(name: string, recent = 0): Promise<ScheduleView> {
    const s = await this.ports.reads.getSchedule(name, recent);
    if (!s) throw new NotFoundError(`no schedule ${name}`);
    return s;
  }

  /** every schedule, each with its last 20 fires */
  async list(): Promise<{ schedules: ScheduleJson[] }> {
    const all = await this.ports.reads.listSchedules(LIST_RECENT_FIRES);
    return { schedules: all.map((s) => scheduleJson(s)) };
  }

  /** one schedule with its next 5 fire times and last 50 fires */
  async show(rawName: string): Promise<ScheduleDetailJson> {
    const s = await this.current(scheduleNameParam(rawName), DETAIL_RECENT_FIRES);
    return scheduleDetailJson(s, nextFires(s.cron, s.timezone, await this.ports.reads.clock(), NEXT_FIRES_SHOWN));
  }

  async create(raw: unknown, by: string, opts: { allowSql?: boolean } = {}): Promise<ScheduleDetailJson> {
    const input = await validateSchedule(raw, await this.context(opts));
    const next = input.enabled ? nextFireAfter(input.cron, input.timezone, await this.ports.reads.clock()) : null;
    const audit = this.audit?.of((r: 'created' | 'exists') =>
      r === 'created'
        ? { action: 'schedule.create', target: input.name, after: { cron: input.cron, command: input.command, queue: input.queue } }
        : null,
    );
    const r = await this.ports.commands.createSchedule({ ...input, source: 'dashboard', declared: true }, next, by, audit);
    if (r === 'exists') throw new ConflictError(`a schedule named ${input.name} exists already`);
    return this.show(input.name);
  }

  /** Change some fields (`enabled` alone for a code-declared schedule); the rest stays. */
  async update(rawName: string, patch: unknown, by: string, opts: { allowSql?: boolean } = {}): Promise<ScheduleDetailJson> {
    const name = scheduleNameParam(rawName);
    if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw new ValidationError('body', 'must be a JSON object');
    const fields = patch as Record<string, unknown>;
    if ('name' in fields && fields.name !== name) throw new ValidationError('name', 'a schedule cannot be renamed');
    if (Object.keys(fields).length === 0) throw new ValidationError('body', 'give at least one field to change');
    if (Object.keys(fields).every((k) => k === 'enabled' || k === 'name')) {
      if (typeof fields.enabled !== 'boolean') throw new ValidationError('enabled', 'must be true or false');
      return this.setEnabled(name, fields.enabled, by);
    }
    const ctx = await this.context(opts);
    const audit = this.audit?.of((r: string) => (r === 'updated' ? { action: 'schedule.update', target: name, after: patch } : null));
    for (let attempt = 0; ; attempt++) {
      const cur = await this.current(name);
      if (cur.source === 'code' && cur.declared && Object.keys(fields).some((k) => k !== 'enabled' && k !== 'name')) {
        throw new ConflictError(`schedule ${name} ${CODE_EDIT_REFUSED}`);
      }
      const input = await validateSchedule({ ...asRequest(cur), ...fields, name }, ctx);
      const record: ScheduleRecord = { ...input, source: cur.source, declared: cur.declared };
      const now = await this.ports.reads.clock();
      const r = await this.ports.commands.updateSchedule(name, record, cur.version, nextAfterChange(cur, input, now), by, audit);
      if (r === 'not_found') throw new NotFoundError(`no schedule ${name}`);
      if (r === 'updated') return this.show(name);
      if (attempt >= 3) throw new ConflictError(`schedule ${name} is being changed by someone else; try again`);
    }
  }

  /** Pause (false) or resume (true); also for a code-declared schedule. Resuming fires from the next tick after now. */
  async setEnabled(rawName: string, rawEnabled: unknown, by: string): Promise<ScheduleDetailJson> {
    const enabled = parseWith(pausedFlag, rawEnabled, 'enabled');
    const name = scheduleNameParam(rawName);
    const action = enabled ? 'schedule.resume' : 'schedule.pause';
    const audit = this.audit?.of((r: string) => (r === 'updated' ? { action, target: name } : null));
    for (let attempt = 0; ; attempt++) {
      const cur = await this.current(name);
      if (cur.enabled === enabled) return this.show(name);
      const r = await this.ports.commands.updateSchedule(
        name,
        { ...cur, enabled },
        cur.version,
        nextAfterChange(cur, { ...cur, enabled }, await this.ports.reads.clock()),
        by,
        audit,
      );
      if (r === 'not_found') throw new NotFoundError(`no schedule ${name}`);
      if (r === 'updated') return this.show(name);
      if (attempt >= 3) throw new ConflictError(`schedule ${name} is being changed by someone else; try again`);
    }
  }

  async remove(rawName: string): Promise<{ deleted: string }> {
    const name = scheduleNameParam(rawName);
    const cur = await this.current(name);
    if (cur.source === 'code' && cur.declared) {
      throw new ConflictError(`schedule ${name} ${CODE_EDIT_REFUSED.replace('Pause, resume', 'Remove it from the code; pause, resume')}`);
    }
    const audit = this.audit?.of((r: string) => (r === 'deleted' ? { action: 'schedule.delete', target: name } : null));
    if ((await this.ports.commands.deleteSchedule(name, audit)) === 'not_found') throw new NotFoundError(`no schedule ${name}`);
    return { deleted: name };
  }

  async run(rawName: string, by: string): Promise<{ token: string; schedule: string }> {
    const name = scheduleNameParam(rawName);
    const audit = this.audit?.of((r: { token: string } | null) =>
      r ? { action: 'schedule.run', target: name, after: { token: r.token, schedule: name } } : null,
    );
    const r = await this.ports.commands.runSchedule(name, by, audit);
    if (!r) throw new NotFoundError(`no schedule ${name}`);
    return { token: r.token, schedule: name };
  }

  /**
   * The schedules a handlers module declares (its `schedules` export), as at a worker start: each is
   * created or brought up to date (source `code`; an operator's pause is kept), and a code schedule no
   * longer declared is disabled (not deleted: its history stays, and the dashboard shows why).
   */
  async declare(raws: unknown, by = 'code'): Promise<{ created: string[]; updated: string[]; disabled: string[] }> {
    if (!Array.isArray(raws)) throw new ValidationError('schedules', 'must be an array of schedules');
    const ctx = await this.context({ allowSql: true });
    const inputs: ScheduleInput[] = [];
    for (let i = 0; i < raws.length; i++) {
      const input = await validateSchedule(raws[i], ctx, `schedules.${i}`);
      if (inputs.some((x) => x.name === input.name)) throw new ValidationError(`schedules.${i}.name`, `${input.name} is declared twice`);
      inputs.push(input);
    }
    const out = { created: [] as string[], updated: [] as string[], disabled: [] as string[] };
    for (const input of inputs) {
      const what = await this.declareOne(input, by);
      if (what !== 'unchanged') out[what].push(input.name);
    }
    const declared = new Set(inputs.map((x) => x.name));
    for (const cur of await this.ports.reads.listSchedules(0)) {
      if (cur.source !== 'code' || !cur.declared || declared.has(cur.name)) continue;
      const r = await this.ports.commands.updateSchedule(cur.name, { ...cur, enabled: false, declared: false }, cur.version, null, by);
      if (r === 'updated') out.disabled.push(cur.name);
    }
    return out;
  }

  private async declareOne(input: ScheduleInput, by: string): Promise<'created' | 'updated' | 'unchanged'> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const cur = await this.ports.reads.getSchedule(input.name, 0);
      if (!cur) {
        const next = input.enabled ? nextFireAfter(input.cron, input.timezone, await this.ports.reads.clock()) : null;
        const r = await this.ports.commands.createSchedule({ ...input, source: 'code', declared: true }, next, by);
        if (r === 'created') return 'created';
        continue; // another worker created it meanwhile: compare with theirs
      }
      // an operator's pause of a declared code schedule is kept; one coming back to the code is enabled again
      const enabled = cur.source === 'code' && cur.declared ? cur.enabled : input.enabled;
      const wanted: ScheduleInput = { ...input, enabled };
      if (cur.source === 'code' && cur.declared && cur.enabled === enabled && sameDefinition(cur, wanted)) return 'unchanged';
      const record: ScheduleRecord = { ...wanted, source: 'code', declared: true };
      const now = await this.ports.reads.clock();
      const r = await this.ports.commands.updateSchedule(input.name, record, cur.version, nextAfterChange(cur, wanted, now), by);
      if (r === 'updated') return 'updated';
    }
    throw new ConflictError(`schedule ${input.name} kept changing while it was being declared; start the worker again`);
  }
}

/**
 * The `schedules` export of a handlers module (or of its default export object); null when it has none.
 * Node caches the module, so loading it after its handlers costs nothing.
 */
export async function loadDeclaredSchedules(modulePath: string): Promise<unknown[] | null> {
  const url = pathToFileURL(resolve(modulePath)).href;
  const mod = (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ url)) as Record<string, unknown>;
  const fromDefault = mod.default && typeof mod.default === 'object' ? (mod.default as Record<string, unknown>).schedules : undefined;
  const list = mod.schedules ?? fromDefault;
  if (list === undefined) return null;
  if (!Array.isArray(list)) throw new ValidationError('schedules', `${modulePath}: the schedules export must be an array`);
  return list;
}
