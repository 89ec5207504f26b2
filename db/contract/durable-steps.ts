// Durable handlers' steps against every store (rules: lib/engine/types/durable.ts): a finished step is replayed
// after a crash, a failed step runs again alone, a transactional step commits its statements and its record
// together (or neither, also when its attempt lost its task), suspensions do not count as failed attempts.
import { describe, expect, it } from 'vitest';
import { TaskError } from '../../lib/engine/errors';
import type { ClaimedTask } from '../../lib/engine/types';
import { registry, runClaimed, runOne, tableRows, until, wakeUntilPending, withTable } from './durable-helpers';
import { type Harness, LONG_LEASE, sleep, type StoreFactory, useStore } from './harness';

/** Claim the task of `queue` once it is due (a retry's backoff). */
async function claimWhenDue(h: Harness, slot: { workerId: string; session: number }, queue: string): Promise<ClaimedTask> {
  let got: ClaimedTask | undefined;
  await until(`a due task of ${queue}`, async () => {
    [got] = await h.store.worker.claim([slot], { leaseMs: LONG_LEASE, queues: [queue] });
    return got !== undefined;
  });
  return got!;
}

export function durableStepTests(factory: StoreFactory) {
  describe('durable handlers: steps', () => {
    const h = useStore(factory);

    it('replays finished steps after a crash (lease rescued): each ran once, the run goes on after them', async () => {
      const runs = { a: 0, b: 0, c: 0 };
      const reg = registry({
        'd.steps': async (_p, ctx) => {
          const x = await ctx.step('a', () => {
            runs.a++;
            return { v: 1, at: new Date(0) };
          });
          const y = await ctx.step('b', async () => ++runs.b && x.v + 1);
          if (ctx.attempt === 1) throw new Error('the worker dies here');
          const z = await ctx.step('c', () => ++runs.c && y * 10);
          return { x, y, z };
        },
      });
      const token = await h().add({ command: 'd.steps', queue: 'dq' });
      const slot = await h().worker();
      // the first attempt records a and b, then its worker is gone: nothing settles it, its lease lapses
      const first = await h().claimOne(slot, { queues: ['dq'], leaseMs: 300 });
      await runClaimed(h(), reg, first, { settle: false });
      await until('the lease rescue', async () => (await h().store.maintenance.rescueExpired()).retried === 1);
      const second = await h().claimOne(slot, { queues: ['dq'] });
      expect(second.attempt).toBe(2);
      const r = await runClaimed(h(), reg, second);
      expect(r.settlement).toEqual({ kind: 'succeeded', result: { x: { v: 1, at: '1970-01-01T00:00:00.000Z' }, y: 2, z: 20 } });
      expect(r.accepted).toBe(true);
      expect(runs).toEqual({ a: 1, b: 1, c: 1 });
      const steps = (await h().store.reads.listSteps(token))!;
      expect(steps.map((s) => [s.seq, s.name, s.kind, s.status, s.attempt, s.tries])).toEqual([
        [1, 'a', 'step', 'succeeded', 1, 1],
        [2, 'b', 'step', 'succeeded', 1, 1],
        [3, 'c', 'step', 'succeeded', 2, 1],
      ]);
      expect(steps[0]!.result).toEqual({ v: 1, at: '1970-01-01T00:00:00.000Z' });
      expect(steps[0]!.startedAt.getTime()).toBeLessThanOrEqual(steps[0]!.endedAt!.getTime());
    });

    it('a failed step is retried by the task retry policy alone: the steps before it are not run again', async () => {
      const runs = { a: 0, b: 0 };
      const reg = registry({
        'd.flaky': async (_p, ctx) => {
          await ctx.step('a', () => ++runs.a);
          return ctx.step('b', () => {
            if (++runs.b === 1) throw new TaskError('b fails once', { number: 7 });
            return 'b ok';
          });
        },
      });
      const token = await h().add({ command: 'd.flaky', queue: 'dq', maxAttempts: 3 });
      const slot = await h().worker();
      const first = await runOne(h(), reg, slot, 'dq');
      expect(first.settlement).toMatchObject({ kind: 'retry', outcome: 'failed', error: { message: 'b fails once', number: 7 } });
      const failedStep = (await h().store.reads.listSteps(token))![1]!;
      expect(failedStep).toMatchObject({ name: 'b', status: 'failed', error: { message: 'b fails once', number: 7 }, tries: 1 });
      const again = await runClaimed(h(), reg, await claimWhenDue(h(), slot, 'dq'));
      expect(again.settlement).toEqual({ kind: 'succeeded', result: 'b ok' });
      expect(runs).toEqual({ a: 1, b: 2 });
      const steps = (await h().store.reads.listSteps(token))!;
      expect(steps.map((s) => [s.name, s.status, s.attempt, s.tries, s.error])).toEqual([
        ['a', 'succeeded', 1, 1, null],
        ['b', 'succeeded', 2, 2, null],
      ]);
    });

    it('a step of another name or kind than recorded, a name twice, a step in a step: the attempt fails, not retried', async () => {
      let changed = false;
      const reg = registry({
        'd.changes': async (_p, ctx) => {
          await ctx.step(changed ? 'renamed' : 'first', () => 1);
          if (!changed) throw new Error('try again');
          return null;
        },
        'd.twice': async (_p, ctx) => {
          await ctx.step('same', () => 1);
          await ctx.step('same', () => 2);
        },
        'd.nested': async (_p, ctx) => ctx.step('outer', () => ctx.step('inner', () => 1)),
      });
      const slot = await h().worker();
      await h().add({ command: 'd.changes', queue: 'dq' });
      expect((await runOne(h(), reg, slot, 'dq')).settlement.kind).toBe('retry');
      changed = true;
      const r = await runClaimed(h(), reg, await claimWhenDue(h(), slot, 'dq'));
      expect(r.settlement).toMatchObject({ kind: 'dead', outcome: 'failed' });
      expect(r.settlement.kind === 'dead' && r.settlement.error.message).toMatch(
        /step 1 was recorded as step "first"; this run calls step "renamed"/,
      );
      await h().add({ command: 'd.twice', queue: 'dq' });
      const twice = await runOne(h(), reg, slot, 'dq');
      expect(twice.settlement.kind === 'dead' && twice.settlement.error.message).toMatch(/step name "same" used twice/);
      await h().add({ command: 'd.nested', queue: 'dq' });
      const nested = await runOne(h(), reg, slot, 'dq');
      expect(nested.settlement.kind === 'dead' && nested.settlement.error.message).toMatch(/step "inner" called inside step "outer"/);
    });

    it('a transactional step commits its statements and its record together; a replay runs nothing', async () => {
      await withTable(h().store, async (table) => {
        let runs = 0;
        const reg = registry({
          'd.tx': async (p: { k: string }, ctx) => {
            const n = await ctx.transaction('insert', async (tx) => {
              runs++;
              const ins = await tx.execute(`INSERT INTO ${table} (k, n) VALUES (@k, @n)`, { k: p.k, n: 5 });
              const rows = await tx.query<{ n: number }>(`SELECT n FROM ${table} WHERE k = @k`, { k: p.k });
              return { inserted: ins.rowsAffected, n: Number(rows[0]!.n) };
            });
            if (ctx.attempt === 1) throw new Error('fails after the transaction');
            return n;
          },
        });
        const token = await h().add({ command: 'd.tx', queue: 'dq', payload: { k: 'order-1' } });
        const slot = await h().worker();
        expect((await runOne(h(), reg, slot, 'dq')).settlement.kind).toBe('retry');
        expect(await tableRows(h().store, table)).toEqual([{ k: 'order-1', n: 5 }]);
        const again = await runClaimed(h(), reg, await claimWhenDue(h(), slot, 'dq'));
        expect(again.settlement).toEqual({ kind: 'succeeded', result: { inserted: 1, n: 5 } });
        expect(runs).toBe(1);
        expect(await tableRows(h().store, table)).toEqual([{ k: 'order-1', n: 5 }]);
        const [step] = (await h().store.reads.listSteps(token))!;
        expect(step).toMatchObject({ name: 'insert', kind: 'transaction', status: 'succeeded', attempt: 1, result: { inserted: 1, n: 5 } });
      });
    });

    it('a transactional step that throws, or whose attempt lost its task, commits nothing', async () => {
      await withTable(h().store, async (table) => {
        const reg = registry({
          'd.txfail': async (_p, ctx) =>
            ctx.transaction('insert', async (tx) => {
              await tx.execute(`INSERT INTO ${table} (k, n) VALUES (@k, @n)`, { k: 'a', n: 1 });
              throw new TaskError('refused after the insert', { retryable: false });
            }),
          'd.txlate': async (_p, ctx) =>
            ctx.transaction('insert', async (tx) => {
              await tx.execute(`INSERT INTO ${table} (k, n) VALUES (@k, @n)`, { k: 'b', n: 2 });
              await sleep(700); // the claim's lease (300 ms) ends meanwhile
              return 'late';
            }),
        });
        const slot = await h().worker();
        const failing = await h().add({ command: 'd.txfail', queue: 'dq' });
        const r = await runOne(h(), reg, slot, 'dq');
        expect(r.settlement).toMatchObject({ kind: 'dead', error: { message: 'refused after the insert' } });
        expect((await h().store.reads.listSteps(failing))![0]).toMatchObject({
          status: 'failed',
          error: { message: 'refused after the insert' },
        });
        await h().add({ command: 'd.txlate', queue: 'dq' });
        const task = await h().claimOne(slot, { queues: ['dq'], leaseMs: 300 });
        const late = await runClaimed(h(), reg, task, { settle: false });
        expect(late.settlement.kind === 'retry' || late.settlement.kind === 'dead').toBe(true);
        expect(late.settlement).toMatchObject({ error: { message: expect.stringMatching(/no longer owns its task/) } });
        expect(await tableRows(h().store, table)).toEqual([]);
      });
    });

    it('attempts that end suspended are not failures: a task of two attempts sleeps three times, is rescued once, fails once', async () => {
      const reg = registry({
        'd.naps': async (_p, ctx) => {
          for (let i = 1; i <= 3; i++) await ctx.sleep(`nap ${i}`, 50);
          return ctx.step('after', () => {
            throw new Error(`fails in attempt ${ctx.attempt}`);
          });
        },
      });
      const token = await h().add({ command: 'd.naps', queue: 'dq', maxAttempts: 2 });
      const slot = await h().worker();
      for (let i = 1; i <= 3; i++) {
        const r = await runOne(h(), reg, slot, 'dq');
        expect(r.settlement).toMatchObject({ kind: 'suspended', step: { name: `nap ${i}`, kind: 'sleep' } });
        expect(r.accepted).toBe(true);
        await wakeUntilPending(h(), token);
      }
      // the fourth attempt is its first that can fail: its worker dies, the rescue retries it (1 failure of 2)
      const fourth = await h().claimOne(slot, { queues: ['dq'], leaseMs: 300 });
      await runClaimed(h(), reg, fourth, { settle: false });
      await until('the lease rescue', async () => (await h().store.maintenance.rescueExpired()).retried === 1);
      // the fifth fails again: its second failure, the last the task has
      const fifth = await runOne(h(), reg, slot, 'dq');
      expect(fifth.settlement).toMatchObject({ kind: 'dead', error: { message: 'fails in attempt 5' } });
      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'dead', attempts: 5, suspensions: 3, maxAttempts: 2 });
      expect(t.history.map((a) => a.outcome)).toEqual(['suspended', 'suspended', 'suspended', 'abandoned', 'failed']);
    });
  });
}
