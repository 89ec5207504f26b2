// Schedules: definitions (create, compare-and-set update, delete), the fires (exactly one task per
// (schedule, tick), also when several callers check at once or the schedule is set back to a tick it
// fired), disable/enable, run now (one task, marked manual), overlap and misfire policies.
// Every check passes its own `now`, so no test waits for the clock.
import { describe, expect, it } from 'vitest';
import type { ScheduleRecord } from '../../lib/engine/types';
import { LONG_LEASE, useStore, type StoreFactory } from './harness';

/** A whole hour well in the future of any store's clock: the ticks below fall on it and after it. */
const T = Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
const at = (ms: number) => new Date(T + ms);

function record(over: Partial<ScheduleRecord> = {}): ScheduleRecord {
  return {
    name: 'every-second',
    cron: '* * * * * *',
    timezone: 'UTC',
    kind: 'handler',
    command: 'demo.echo',
    payload: { from: 'schedule' },
    queue: 'sched',
    priority: 3,
    maxAttempts: 2,
    timeoutMs: null,
    misfire: 'skip',
    overlap: 'allow',
    enabled: true,
    source: 'dashboard',
    declared: true,
    ...over,
  };
}

export function scheduleTests(factory: StoreFactory) {
  describe('schedules', () => {
    const h = useStore(factory);

    /** the tasks a schedule fired, oldest first */
    async function firedTasks(name: string) {
      const page = await h().store.reads.listTasks({ queue: 'sched', limit: 500 });
      return page.items.filter((t) => t.schedule?.name === name).reverse();
    }

    it("the store's clock is the one it stamps times with (a schedule's next fire is computed from it)", async () => {
      const slot = await h().worker();
      const before = await h().storeNow(slot);
      const clock = (await h().store.reads.clock()).getTime();
      const after = await h().storeNow(slot);
      expect(clock).toBeGreaterThanOrEqual(before - 1);
      expect(clock).toBeLessThanOrEqual(after + 1);
    });

    it('creates, reads, refuses a taken name, updates with compare-and-set, deletes', async () => {
      const { store } = h();
      expect(await store.commands.createSchedule(record(), at(0), 'tester')).toBe('created');
      expect(await store.commands.createSchedule(record({ cron: '0 * * * *' }), at(0), 'other')).toBe('exists');
      await store.commands.createSchedule(record({ name: 'another', source: 'code' }), null, 'worker');
      const s = await store.reads.getSchedule('every-second', 5);
      expect(s).toMatchObject({
        name: 'every-second',
        cron: '* * * * * *',
        timezone: 'UTC',
        kind: 'handler',
        command: 'demo.echo',
        payload: { from: 'schedule' },
        queue: 'sched',
        priority: 3,
        maxAttempts: 2,
        timeoutMs: null,
        misfire: 'skip',
        overlap: 'allow',
        enabled: true,
        source: 'dashboard',
        declared: true,
        lastFireAt: null,
        lastToken: null,
        createdBy: 'tester',
        updatedBy: 'tester',
        recent: [],
      });
      expect(s!.nextFireAt?.getTime()).toBe(T);
      expect(s!.createdAt).toBeInstanceOf(Date);
      expect((await store.reads.listSchedules(0)).map((x) => [x.name, x.source, x.nextFireAt])).toEqual([
        ['another', 'code', null],
        ['every-second', 'dashboard', at(0)],
      ]);
      expect(await store.reads.getSchedule('nope', 5)).toBeNull();

      // a change keeps the next fire time unless given one; a stale version is refused
      const v = s!.version;
      expect(await store.commands.updateSchedule('every-second', record({ priority: 7 }), v, undefined, 'editor')).toBe('updated');
      const s2 = (await store.reads.getSchedule('every-second', 0))!;
      expect(s2).toMatchObject({ priority: 7, updatedBy: 'editor', createdBy: 'tester' });
      expect(s2.nextFireAt?.getTime()).toBe(T);
      expect(s2.version).toBeGreaterThan(v);
      expect(await store.commands.updateSchedule('every-second', record(), v, undefined, 'late')).toBe('conflict');
      expect(await store.commands.updateSchedule('nope', record({ name: 'nope' }), 1, undefined, 'x')).toBe('not_found');
      expect(await store.commands.updateSchedule('every-second', record({ cron: '0 * * * *' }), s2.version, at(60_000), 'e')).toBe(
        'updated',
      );
      expect((await store.reads.getSchedule('every-second', 0))!.nextFireAt?.getTime()).toBe(T + 60_000);

      expect(await store.commands.deleteSchedule('every-second')).toBe('deleted');
      expect(await store.commands.deleteSchedule('every-second')).toBe('not_found');
      expect(await store.reads.getSchedule('every-second', 0)).toBeNull();
    });

    it('a due tick fires one task carrying the schedule and its tick; the next check fires the next tick', async () => {
      const { store } = h();
      await store.commands.createSchedule(record(), at(0), 'tester');
      expect(await store.maintenance.fireDue(at(-1))).toEqual([]);
      const [r] = await store.maintenance.fireDue(at(300));
      expect(r).toMatchObject({ schedule: 'every-second', missed: 0, overlapped: 0 });
      expect(r!.fired.map((f) => f.fireAt.getTime())).toEqual([T]);
      expect(r!.nextFireAt?.getTime()).toBe(T + 1000);
      const task = await h().task(r!.fired[0]!.token);
      expect(task).toMatchObject({
        status: 'pending',
        queue: 'sched',
        kind: 'handler',
        command: 'demo.echo',
        payload: { from: 'schedule' },
        priority: 3,
        maxAttempts: 2,
        caller: 'schedule',
        schedule: { name: 'every-second', fireAt: at(0) },
      });
      // the same check again finds nothing due
      expect(await store.maintenance.fireDue(at(300))).toEqual([]);
      const [r2] = await store.maintenance.fireDue(at(1200));
      expect(r2!.fired.map((f) => f.fireAt.getTime())).toEqual([T + 1000]);
      const s = (await store.reads.getSchedule('every-second', 10))!;
      expect(s.nextFireAt?.getTime()).toBe(T + 2000);
      expect(s.lastFireAt?.getTime()).toBe(T + 1000);
      expect(s.lastToken).toBe(r2!.fired[0]!.token);
      expect(s.recent.map((f) => [f.token, f.fireAt?.getTime(), f.status])).toEqual([
        [r2!.fired[0]!.token, T + 1000, 'pending'],
        [r!.fired[0]!.token, T, 'pending'],
      ]);
      expect((await store.reads.listTasks({ queue: 'sched' })).items[0]!.schedule).toEqual({ name: 'every-second', fireAt: at(1000) });
      expect(await h().counts()).toEqual([
        { queue: 'sched', waiting: 0, pending: 2, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
      ]);
    });

    it('callers checking at once create exactly one task per tick', async () => {
      const { store } = h();
      await store.commands.createSchedule(record(), at(0), 'tester');
      await store.commands.createSchedule(record({ name: 'second-one' }), at(0), 'tester');
      for (let tick = 0; tick < 5; tick++) {
        const now = at(tick * 1000 + 250);
        await Promise.all(Array.from({ length: 6 }, () => store.maintenance.fireDue(now)));
      }
      for (const name of ['every-second', 'second-one']) {
        const fired = await firedTasks(name);
        expect(fired.map((t) => t.schedule!.fireAt!.getTime() - T)).toEqual([0, 1000, 2000, 3000, 4000]);
      }
    });

    it('never fires a tick twice, even when the schedule is set back to a tick it fired', async () => {
      const { store } = h();
      await store.commands.createSchedule(record(), at(0), 'tester');
      await store.maintenance.fireDue(at(100));
      const s = (await store.reads.getSchedule('every-second', 0))!;
      expect(await store.commands.updateSchedule('every-second', record(), s.version, at(0), 'rewind')).toBe('updated');
      const [r] = await store.maintenance.fireDue(at(200));
      expect(r?.fired ?? []).toEqual([]);
      expect((await store.reads.getSchedule('every-second', 0))!.nextFireAt?.getTime()).toBe(T + 1000);
      expect((await firedTasks('every-second')).length).toBe(1);
    });

    it('a disabled schedule does not fire; enabled again, it fires from its new next time', async () => {
      const { store } = h();
      await store.commands.createSchedule(record(), at(0), 'tester');
      let s = (await store.reads.getSchedule('every-second', 0))!;
      expect(await store.commands.updateSchedule('every-second', record({ enabled: false }), s.version, null, 'ops')).toBe('updated');
      s = (await store.reads.getSchedule('every-second', 0))!;
      expect(s).toMatchObject({ enabled: false, nextFireAt: null });
      expect(await store.maintenance.fireDue(at(5_300))).toEqual([]);
      expect(await store.commands.updateSchedule('every-second', record(), s.version, at(6_000), 'ops')).toBe('updated');
      expect(await store.maintenance.fireDue(at(5_900))).toEqual([]);
      const [r] = await store.maintenance.fireDue(at(6_100));
      expect(r!.fired.map((f) => f.fireAt.getTime() - T)).toEqual([6000]);
      expect((await firedTasks('every-second')).length).toBe(1);
    });

    it('run now creates exactly one task, marked manual (no tick), also while disabled', async () => {
      const { store } = h();
      await store.commands.createSchedule(record({ enabled: false }), null, 'tester');
      const r = await store.commands.runSchedule('every-second', 'dashboard');
      expect(r).toMatchObject({ created: true });
      const task = await h().task(r!.token);
      expect(task).toMatchObject({
        status: 'pending',
        command: 'demo.echo',
        queue: 'sched',
        caller: 'dashboard',
        schedule: { name: 'every-second', fireAt: null },
      });
      const fired = await firedTasks('every-second');
      expect(fired.map((t) => t.token)).toEqual([r!.token]);
      const s = (await store.reads.getSchedule('every-second', 5))!;
      expect(s.lastToken).toBe(r!.token);
      expect(s.recent).toMatchObject([{ token: r!.token, fireAt: null, status: 'pending' }]);
      expect(s.nextFireAt).toBeNull();
      expect(await store.commands.runSchedule('nope', 'dashboard')).toBeNull();
      // a disabled schedule's checks still fire nothing
      expect(await store.maintenance.fireDue(at(9_000))).toEqual([]);
    });

    it('skip_if_running holds back while the previous fire is pending or running', async () => {
      const { store } = h();
      const slot = await h().worker();
      await store.commands.createSchedule(record({ overlap: 'skip_if_running' }), at(0), 'tester');
      const [first] = await store.maintenance.fireDue(at(200));
      expect(first!.fired).toHaveLength(1);
      const [held] = await store.maintenance.fireDue(at(1_200));
      expect(held).toMatchObject({ fired: [], overlapped: 1 });
      const c = await h().claimOne(slot, { queues: ['sched'], leaseMs: LONG_LEASE });
      const [stillHeld] = await store.maintenance.fireDue(at(2_200));
      expect(stillHeld).toMatchObject({ fired: [], overlapped: 1 });
      expect(await h().succeed(c)).toBe(true);
      const [next] = await store.maintenance.fireDue(at(3_200));
      expect(next!.fired.map((f) => f.fireAt.getTime() - T)).toEqual([3000]);
      expect((await firedTasks('every-second')).length).toBe(2);
    });

    it('after downtime, skip drops the missed ticks and run_once fires once for them', async () => {
      const { store } = h();
      const hourly = { cron: '0 0 * * * *' };
      await store.commands.createSchedule(record({ ...hourly, name: 'skip' }), at(0), 't');
      await store.commands.createSchedule(record({ ...hourly, name: 'once', misfire: 'run_once' }), at(0), 't');
      // every process was down for five and a half hours
      const reports = await store.maintenance.fireDue(at(5.5 * 3_600_000));
      const by = Object.fromEntries(reports.map((r) => [r.schedule, r]));
      expect(by.skip!.fired).toEqual([]);
      expect(by.skip!.missed).toBeGreaterThan(0);
      expect(by.once!.fired.map((f) => f.fireAt.getTime() - T)).toEqual([5 * 3_600_000]);
      for (const name of ['skip', 'once']) {
        expect((await store.reads.getSchedule(name, 0))!.nextFireAt?.getTime()).toBe(T + 6 * 3_600_000);
      }
      expect((await firedTasks('skip')).length).toBe(0);
      expect((await firedTasks('once')).length).toBe(1);
    });
  });
}
