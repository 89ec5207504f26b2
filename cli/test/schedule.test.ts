// `readpast schedule …` as users run it: real child processes over a temporary SQLite file. add,
// list, show, pause, resume, run, remove with their JSON shapes and exit codes; a worker fires a due
// schedule and `status --json` shows the task's schedule; schedules declared in a handlers module are
// upserted at worker start, refused to edit from here, and disabled once the module stops declaring them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleDetailJson, ScheduleJson } from '../../lib/api/present';
import { cli, cliOk, ISO_MS, statusOf, tempDb, UUID, waitFor, WorkerProcess, type TempDb } from './helpers';

const list = async (db: TempDb) => (JSON.parse(await cliOk(['schedule', 'list', '--json'], db)) as { schedules: ScheduleJson[] }).schedules;
const show = async (db: TempDb, name: string) => JSON.parse(await cliOk(['schedule', 'show', name, '--json'], db)) as ScheduleDetailJson;

describe('readpast schedule', () => {
  let db: TempDb;
  const workers: WorkerProcess[] = [];
  beforeAll(() => {
    db = tempDb();
  });
  afterAll(async () => {
    for (const w of workers) w.kill();
    await Promise.all(workers.map((w) => w.exited));
    db.cleanup();
  });

  it('add, list, show, pause, resume, run, remove — with the exit codes of the other commands', async () => {
    const env = { ...db.env, USER: 'tester' };
    const line = await cliOk(
      ['schedule', 'add', 'nightly', '--cron', '0 2 * * 1-5', '--tz', 'Europe/Berlin', '--handler', 'demo.echo', '--payload', '{"a":1}'],
      { env },
    );
    expect(line).toMatch(/^schedule nightly added: At 02:00, Monday through Friday \(0 2 \* \* 1-5, Europe\/Berlin\); next \S+Z \(in /);
    const added = JSON.parse(
      await cliOk(
        [
          'schedule',
          'add',
          'often',
          '--cron',
          '*/10 * * * * *',
          '--handler',
          'demo.echo',
          '--queue',
          'reports',
          '--priority',
          '5',
          '--max-attempts',
          '2',
          '--timeout-ms',
          '5000',
          '--misfire',
          'run_once',
          '--overlap',
          'skip_if_running',
          '--json',
        ],
        { env },
      ),
    ) as ScheduleDetailJson;
    expect(added).toMatchObject({
      name: 'often',
      cron: '*/10 * * * * *',
      description: 'Every 10 seconds',
      timezone: 'UTC',
      kind: 'handler',
      command: 'demo.echo',
      payload: null,
      queue: 'reports',
      priority: 5,
      maxAttempts: 2,
      timeoutMs: 5000,
      misfire: 'run_once',
      overlap: 'skip_if_running',
      enabled: true,
      source: 'dashboard',
      createdBy: 'cli:tester',
      recent: [],
    });
    expect(added.nextFires).toHaveLength(5);
    expect(added.nextFireAt).toBe(added.nextFires[0]);

    const all = await list(db);
    expect(all.map((s) => s.name)).toEqual(['nightly', 'often']);
    const nightly = await show(db, 'nightly');
    expect(nightly).toMatchObject({ timezone: 'Europe/Berlin', payload: { a: 1 }, enabled: true });
    // 02:00 in Berlin in November is 01:00Z, on weekdays only
    for (const t of nightly.nextFires) {
      expect(t).toMatch(/T01:00:00\.000Z$/);
      expect([1, 2, 3, 4, 5]).toContain(new Date(t).getUTCDay());
    }
    expect(await cliOk(['schedule', 'show', 'nightly'], db)).toMatch(/cron\s+0 2 \* \* 1-5 {2}\(At 02:00, Monday through Friday\)/);
    expect(await cliOk(['schedule', 'list'], db)).toMatch(/^NAME\s+CRON\s+ZONE\s+NEXT\s+LAST\s+STATE\s+SOURCE\n/);

    // bad arguments name the flag (exit 2); a taken name is a conflict (4); an unknown one not found (3)
    const badCron = await cli(['schedule', 'add', 'x', '--cron', '* * *', '--handler', 'demo.echo'], db);
    expect(badCron.code).toBe(2);
    expect(badCron.stderr).toMatch(/^readpast schedule add: --cron: has 3 fields/);
    const badZone = await cli(['schedule', 'add', 'x', '--cron', '* * * * *', '--tz', 'Mars/Base', '--handler', 'demo.echo'], db);
    expect(badZone.code).toBe(2);
    expect(badZone.stderr).toMatch(/--tz: not an IANA time zone/);
    expect((await cli(['schedule', 'add', 'x', '--handler', 'demo.echo'], db)).stderr).toMatch(/--cron: required/);
    expect((await cli(['schedule', 'add', 'x', '--cron', '* * * * *', '--handler', 'nope.nope'], db)).stderr).toMatch(
      /--handler: unknown handler/,
    );
    expect((await cli(['schedule', 'add', 'x', '--cron', '* * * * *', '--handler', 'demo.echo', '--misfire', 'later'], db)).code).toBe(2);
    expect((await cli(['schedule', 'add', 'bad name', '--cron', '* * * * *', '--handler', 'demo.echo'], db)).stderr).toMatch(/NAME:/);
    const taken = await cli(['schedule', 'add', 'nightly', '--cron', '* * * * *', '--handler', 'demo.echo'], db);
    expect(taken.code).toBe(4);
    expect(taken.stderr).toMatch(/a schedule named nightly exists already/);
    for (const sub of ['show', 'pause', 'resume', 'run', 'remove']) {
      const r = await cli(['schedule', sub, 'nope'], db);
      expect([sub, r.code, r.stderr]).toEqual([sub, 3, `readpast schedule ${sub}: no schedule nope\n`]);
    }
    expect((await cli(['schedule', 'frobnicate'], db)).code).toBe(2);

    // pause stops the fires; resume starts again from the next tick; run fires once now, also while paused
    expect(await cliOk(['schedule', 'pause', 'often'], { env })).toBe('schedule often paused: it fires nothing until resumed\n');
    expect(await show(db, 'often')).toMatchObject({ enabled: false, nextFireAt: null, nextFires: [], updatedBy: 'cli:tester' });
    const token = (await cliOk(['schedule', 'run', 'often'], { env })).trim();
    expect(token).toMatch(UUID);
    const task = await statusOf(token, db);
    expect(task).toMatchObject({ status: 'pending', queue: 'reports', priority: 5, maxAttempts: 2, timeoutMs: 5000, caller: 'cli:tester' });
    expect(task.schedule).toMatchObject({ name: 'often', manual: true });
    expect(task.schedule!.fireAt).toMatch(ISO_MS);
    expect((await show(db, 'often')).recent).toEqual([{ token, fireAt: task.schedule!.fireAt, manual: true, status: 'pending' }]);
    expect(await cliOk(['schedule', 'resume', 'often'], db)).toMatch(/^schedule often resumed; next \S+0\.000Z \((in \d+ s|due now)\)\n$/);

    expect(await cliOk(['schedule', 'remove', 'often'], db)).toBe('schedule often removed (the tasks it fired stay)\n');
    expect((await list(db)).map((s) => s.name)).toEqual(['nightly']);
    expect((await statusOf(token, db)).schedule?.name).toBe('often');
  }, 180_000); // some twenty CLI processes in a row: seconds each on a busy machine

  it('a worker fires a due schedule; status --json shows schedule: {name, fireAt}', async () => {
    await cliOk(['schedule', 'add', 'tick', '--cron', '* * * * * *', '--handler', 'demo.echo', '--payload', '{"hi":1}'], db);
    const w = new WorkerProcess(['--concurrency', '2'], { env: db.env });
    workers.push(w);
    await w.started();
    const fired = await waitFor(async () => (await show(db, 'tick')).recent.find((f) => f.status === 'succeeded' && !f.manual), {
      timeoutMs: 20_000,
      what: 'a fire of tick to succeed',
      workers: [w],
    });
    await cliOk(['schedule', 'pause', 'tick'], db);
    const s = await statusOf(fired.token, db);
    expect(s).toMatchObject({ status: 'succeeded', command: 'demo.echo', caller: 'schedule', result: { hi: 1 } });
    expect(s.schedule).toEqual({ name: 'tick', fireAt: fired.fireAt, manual: false });
    expect(Date.parse(fired.fireAt) % 1000).toBe(0);
    expect(w.logs().some((l) => l.msg === 'schedule fired' && l.schedule === 'tick')).toBe(true);
    await w.stop();
  });

  it('schedules declared in a handlers module: upserted at start, not editable here, disabled once undeclared', async () => {
    const v1 = join(db.dir, 'jobs-v1.mjs');
    writeFileSync(
      v1,
      `export default (registry) => registry.register('jobs.rollup', (p) => ({ rolled: p }));
export const schedules = [
  { name: 'rollup', cron: '0 3 * * *', timezone: 'America/New_York', command: 'jobs.rollup', payload: { day: 'yesterday' }, queue: 'etl' },
  { name: 'cleanup', cron: '*/5 * * * *', command: 'demo.echo', overlap: 'skip_if_running' },
];
`,
    );
    const v2 = join(db.dir, 'jobs-v2.mjs');
    writeFileSync(
      v2,
      `export default (registry) => registry.register('jobs.rollup', (p) => ({ rolled: p }));
export const schedules = [{ name: 'rollup', cron: '0 4 * * *', timezone: 'America/New_York', command: 'jobs.rollup', queue: 'etl' }];
`,
    );
    const bad = join(db.dir, 'jobs-bad.mjs');
    writeFileSync(
      bad,
      `export default () => {};\nexport const schedules = [{ name: 'broken', cron: 'every day', command: 'demo.echo' }];\n`,
    );

    const w1 = new WorkerProcess(['--handlers', v1, '--concurrency', '1'], { env: db.env });
    workers.push(w1);
    await w1.started();
    expect(w1.logs().find((l) => l.msg === 'schedules declared in code')).toMatchObject({ created: ['rollup', 'cleanup'] });
    const rollup = await show(db, 'rollup');
    expect(rollup).toMatchObject({
      source: 'code',
      declared: true,
      enabled: true,
      cron: '0 3 * * *',
      timezone: 'America/New_York',
      command: 'jobs.rollup',
      queue: 'etl',
      payload: { day: 'yesterday' },
      createdBy: 'code',
    });
    expect(rollup.nextFires[0]).toMatch(/T08:00:00\.000Z$/); // 03:00 EST
    expect(await show(db, 'cleanup')).toMatchObject({ source: 'code', overlap: 'skip_if_running' });

    // edits from here are refused with a reason; pause and run now work
    const removed = await cli(['schedule', 'remove', 'rollup'], db);
    expect(removed.code).toBe(4);
    expect(removed.stderr).toMatch(/schedule rollup is declared in code .*change it there/);
    await cliOk(['schedule', 'pause', 'cleanup'], db);
    expect((await cliOk(['schedule', 'run', 'rollup'], db)).trim()).toMatch(UUID);
    await w1.stop();

    // the next deploy: rollup changed, cleanup gone — rollup is updated, cleanup disabled (not deleted)
    const w2 = new WorkerProcess(['--handlers', v2, '--concurrency', '1'], { env: db.env });
    workers.push(w2);
    await w2.started();
    expect(w2.logs().find((l) => l.msg === 'schedules declared in code')).toMatchObject({
      created: [],
      updated: ['rollup'],
      disabled: ['cleanup'],
    });
    expect(await show(db, 'rollup')).toMatchObject({ cron: '0 4 * * *', payload: null, enabled: true, declared: true });
    expect(await show(db, 'cleanup')).toMatchObject({ source: 'code', declared: false, enabled: false, nextFireAt: null });
    // a schedule no longer declared can be removed from here
    await cliOk(['schedule', 'remove', 'cleanup'], db);
    await w2.stop();

    // a bad declaration stops the worker before it starts, naming the field (exit 2)
    const w3 = new WorkerProcess(['--handlers', bad], { env: db.env });
    workers.push(w3);
    const exit = await w3.exited;
    expect(exit.code).toBe(2);
    expect(w3.stderr).toMatch(/schedules\.0\.cron: has 2 fields/);
  }, 180_000); // three workers and seven CLI processes in a row: seconds each on a busy machine
});
