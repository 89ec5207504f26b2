// The schedule front door against a real SQLite file: create / edit / pause / resume with their
// errors (400 naming the field, 404, 409), an edit taking effect from the next tick, and the sync of
// code-declared schedules (refused edits, a kept pause, disabled once undeclared, enabled when back).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import { openStore } from './open';
import { Readpast } from './readpast';

let dir: string;
let rp: Readpast;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-schedules-'));
  rp = new Readpast(await openStore(`sqlite:${join(dir, 'db.sqlite')}`));
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const rejects = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('accepted');
    },
    (e: unknown) => e,
  );

describe('schedules through lib/api', () => {
  it('creates, edits (from the next tick), pauses and resumes; errors name the field', async () => {
    const s = await rp.createSchedule({ name: 'rollup', cron: '0 2 * * *', timezone: 'Europe/Berlin', command: 'demo.echo' }, 'ann');
    expect(s).toMatchObject({ name: 'rollup', source: 'dashboard', createdBy: 'ann', enabled: true });
    expect(s.nextFires).toHaveLength(5);
    expect(Date.parse(s.nextFireAt!)).toBeGreaterThan(Date.now());

    expect(await rejects(rp.createSchedule({ name: 'rollup', cron: '* * * * *', command: 'demo.echo' }, 'x'))).toBeInstanceOf(
      ConflictError,
    );
    expect(await rejects(rp.createSchedule({ name: 'y', cron: '* * * * * * *', command: 'demo.echo' }, 'x'))).toMatchObject({
      field: 'cron',
    });
    expect(await rejects(rp.createSchedule({ name: 'y', cron: '* * * * *', timezone: 'X/Y', command: 'demo.echo' }, 'x'))).toMatchObject({
      field: 'timezone',
    });
    expect(
      await rejects(rp.createSchedule({ name: 'y', cron: '* * * * *', command: 'select 1', kind: 'sql' }, 'x', { allowSql: false })),
    ).toMatchObject({
      field: 'kind',
    });

    // a change of expression moves the next fire; a change of payload keeps it
    const edited = await rp.updateSchedule('rollup', { cron: '30 3 * * *', payload: { n: 1 } }, 'bob');
    expect(edited).toMatchObject({ cron: '30 3 * * *', payload: { n: 1 }, updatedBy: 'bob', createdBy: 'ann' });
    expect(edited.nextFires[0]).toMatch(/T0[12]:30:00\.000Z$/);
    const kept = await rp.updateSchedule('rollup', { priority: 9 }, 'bob');
    expect(kept.nextFireAt).toBe(edited.nextFireAt);
    expect(await rejects(rp.updateSchedule('rollup', { cron: 'nope' }, 'bob'))).toMatchObject({ field: 'cron' });
    expect(await rejects(rp.updateSchedule('rollup', { name: 'other' }, 'bob'))).toMatchObject({ field: 'name' });
    expect(await rejects(rp.updateSchedule('nope', { priority: 1 }, 'bob'))).toBeInstanceOf(NotFoundError);

    const paused = await rp.pauseSchedule('rollup', 'ops');
    expect(paused).toMatchObject({ enabled: false, nextFireAt: null, nextFires: [] });
    const resumed = await rp.updateSchedule('rollup', { enabled: true }, 'ops');
    expect(resumed.enabled).toBe(true);
    expect(resumed.nextFires).toHaveLength(5);
    expect(await rejects(rp.updateSchedule('rollup', { enabled: 'yes' }, 'ops'))).toBeInstanceOf(ValidationError);
    expect(await rp.deleteSchedule('rollup')).toEqual({ deleted: 'rollup' });
    expect(await rejects(rp.deleteSchedule('rollup'))).toBeInstanceOf(NotFoundError);
  });

  it("a schedule's next fire is computed from the store's clock, not this process's", async () => {
    const ahead = 5 * 3_600_000;
    await rp.close();
    const store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
    store.reads.clock = async () => new Date(Date.now() + ahead);
    rp = new Readpast(store);
    const created = await rp.createSchedule({ name: 'hourly', cron: '0 * * * *', timezone: 'UTC', command: 'demo.echo' }, 'ann');
    expect(Date.parse(created.nextFireAt!)).toBeGreaterThan(Date.now() + ahead - 3_600_000);
    expect(Date.parse(created.nextFires[0]!)).toBeGreaterThan(Date.now() + ahead - 3_600_000);
    await rp.updateSchedule('hourly', { enabled: false }, 'ann');
    const resumed = await rp.updateSchedule('hourly', { enabled: true }, 'ann');
    expect(Date.parse(resumed.nextFireAt!)).toBeGreaterThan(Date.now() + ahead - 3_600_000);
    const edited = await rp.updateSchedule('hourly', { cron: '30 * * * *' }, 'ann');
    expect(Date.parse(edited.nextFireAt!)).toBeGreaterThan(Date.now() + ahead - 3_600_000);
  });

  it('code-declared schedules: upserted, refused to edit, a pause kept, disabled when undeclared, back when declared again', async () => {
    const decl = [
      { name: 'a', cron: '*/5 * * * *', command: 'demo.echo' },
      { name: 'b', cron: '0 * * * *', command: 'demo.sleep', payload: { ms: 1 } },
    ];
    expect(await rp.declareSchedules(decl)).toEqual({ created: ['a', 'b'], updated: [], disabled: [] });
    // the same declarations again change nothing (every worker start declares them)
    expect(await rp.declareSchedules(decl)).toEqual({ created: [], updated: [], disabled: [] });

    const refused = await rejects(rp.updateSchedule('a', { cron: '* * * * *' }, 'dashboard'));
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as Error).message).toMatch(/declared in code .* change it there/);
    expect(await rejects(rp.deleteSchedule('a'))).toBeInstanceOf(ConflictError);
    await rp.pauseSchedule('a', 'ops');
    expect((await rp.runSchedule('a', 'ops')).token).toMatch(/^[0-9a-f-]{36}$/);

    // a is changed in code (its pause stays), b is gone (disabled, kept)
    expect(await rp.declareSchedules([{ ...decl[0], cron: '*/10 * * * *' }])).toEqual({ created: [], updated: ['a'], disabled: ['b'] });
    expect(await rp.schedule('a')).toMatchObject({ cron: '*/10 * * * *', enabled: false, source: 'code', declared: true });
    expect(await rp.schedule('b')).toMatchObject({ enabled: false, declared: false, nextFireAt: null });
    // b back in the code: enabled again
    expect(await rp.declareSchedules(decl)).toMatchObject({ updated: ['a', 'b'] });
    expect(await rp.schedule('b')).toMatchObject({ enabled: true, declared: true });
    expect((await rp.schedule('b')).nextFires).toHaveLength(5);

    // a dashboard schedule of the same name is taken over by the code
    await rp.createSchedule({ name: 'c', cron: '0 0 * * *', command: 'demo.echo' }, 'ann');
    expect(await rp.declareSchedules([...decl, { name: 'c', cron: '0 1 * * *', command: 'demo.echo' }])).toMatchObject({ updated: ['c'] });
    expect(await rp.schedule('c')).toMatchObject({ source: 'code', cron: '0 1 * * *' });

    expect(await rejects(rp.declareSchedules({}))).toMatchObject({ field: 'schedules' });
    expect(await rejects(rp.declareSchedules([decl[0], decl[0]]))).toMatchObject({ field: 'schedules.1.name' });
    expect(await rejects(rp.declareSchedules([{ name: 'z', cron: 'x', command: 'demo.echo' }]))).toMatchObject({
      field: 'schedules.0.cron',
    });
  });
});
