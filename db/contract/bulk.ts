// Bulk commands on tasks (retry, cancel, delete, run now, priority), editing a task before a retry, and
// failure groups by fingerprint. Kept counts must equal the real ones after each.
import { describe, expect, it } from 'vitest';
import { LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';

const UNKNOWN = '00000000-0000-4000-8000-000000000001';

export function bulkTests(factory: StoreFactory): void {
  describe('bulk commands', () => {
    const h = useStore(factory);

    it('retries, cancels, deletes, runs now and reprioritises tokens, counting what each did; kept counts follow', async () => {
      const { store } = h();
      const slot = await h().worker();
      const all = new Set<string>();
      const dead = [await h().deadTask(slot, 'x'), await h().deadTask(slot, 'y')];
      const done = await h().doneTask(slot);
      const later = await h().add({ runAt: new Date(Date.now() + 3_600_000) });
      const ready = await h().add();
      for (const t of [...dead, done, later, ready]) all.add(t);
      const check = async (step: string) => expect(await h().counts(), step).toEqual(await h().expectedCounts(all));

      expect(await store.commands.bulk('retry', [...dead, done, UNKNOWN], {})).toEqual({
        done: 2,
        skipped: 1,
        missing: 1,
        dedupKeyHeld: 0,
      });
      for (const t of dead) expect(await h().status(t)).toBe('pending');
      await check('after retry');

      expect(await store.commands.bulk('run_now', [later, ready], {})).toEqual({ done: 1, skipped: 1, missing: 0, dedupKeyHeld: 0 });
      expect((await h().task(later)).runAfter.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

      expect(await store.commands.bulk('priority', [later, ready, done], { priority: 7 })).toEqual({
        done: 2,
        skipped: 1,
        missing: 0,
        dedupKeyHeld: 0,
      });
      expect((await h().task(ready)).priority).toBe(7);
      expect((await h().task(done)).priority).toBe(0);

      expect(await store.commands.bulk('cancel', [later, ready, done], {})).toEqual({ done: 2, skipped: 1, missing: 0, dedupKeyHeld: 0 });
      expect(await h().status(later)).toBe('cancelled');
      await check('after cancel');

      expect(await store.commands.bulk('delete', [later, ready, done, dead[0]!], {})).toEqual({
        done: 3,
        skipped: 1,
        missing: 0,
        dedupKeyHeld: 0,
      });
      expect(await store.reads.getTask(done)).toBeNull();
      for (const t of [later, ready, done]) all.delete(t);
      await check('after delete');
    });

    it('asks running tasks to stop on a bulk cancel', async () => {
      const { store } = h();
      const slot = await h().worker();
      const t = await h().add();
      await h().claimOne(slot, { leaseMs: LONG_LEASE });
      expect(await store.commands.bulk('cancel', [t], {})).toEqual({ done: 1, skipped: 0, missing: 0, dedupKeyHeld: 0 });
      expect(await h().task(t)).toMatchObject({ status: 'running', cancelRequested: true });
    });
  });

  describe('edit before retry', () => {
    const h = useStore(factory);

    it('edits a pending task; a queue change moves its kept count', async () => {
      const { store } = h();
      const t = await h().add({ queue: 'a', payload: { n: 1 } });
      const r = await store.commands.editTask(t, { queue: 'b', payload: { n: 2 }, priority: 5, maxAttempts: 9 }, false);
      expect(r.result).toBe('edited');
      if (r.result !== 'edited') return;
      expect(r.before).toMatchObject({ queue: 'a', payload: { n: 1 }, priority: 0 });
      expect(r.after).toMatchObject({ queue: 'b', payload: { n: 2 }, priority: 5, maxAttempts: 9, status: 'pending' });
      expect(await h().counts()).toEqual(await h().expectedCounts([t]));
      expect((await h().counts()).find((c) => c.queue === 'a')?.pending ?? 0).toBe(0);
    });

    it('saves and retries a dead task in one step, in its new queue', async () => {
      const { store } = h();
      const slot = await h().worker();
      const t = await h().deadTask(slot, 'bad payload', { queue: 'a', maxAttempts: 1 });
      const runAt = new Date(Date.now() + 60_000);
      const r = await store.commands.editTask(t, { payload: { fixed: true }, queue: 'c', runAt }, true);
      expect(r.result).toBe('retried');
      const after = await h().task(t);
      expect(after).toMatchObject({ status: 'pending', queue: 'c', payload: { fixed: true }, finishedAt: null });
      expect(after.maxAttempts).toBeGreaterThanOrEqual(2);
      expect(after.runAfter.getTime()).toBe(runAt.getTime());
      expect(await h().counts()).toEqual(await h().expectedCounts([t]));
    });

    it('refuses while running, and for succeeded or unknown tasks', async () => {
      const { store } = h();
      const slot = await h().worker();
      const done = await h().doneTask(slot);
      const t = await h().add();
      await h().claimOne(slot, { leaseMs: LONG_LEASE });
      expect((await store.commands.editTask(t, { priority: 3 }, false)).result).toBe('running');
      expect((await h().task(t)).priority).toBe(0);
      expect((await store.commands.editTask(done, { priority: 3 }, true)).result).toBe('conflict');
      expect((await store.commands.editTask(UNKNOWN, { priority: 3 }, false)).result).toBe('not_found');
    });
  });

  describe('failure groups by fingerprint', () => {
    const h = useStore(factory);

    const die = async (
      slot: Awaited<ReturnType<ReturnType<typeof h>['worker']>>,
      message: string,
      number: number,
      command = 'demo.fail',
    ) => {
      const token = await h().add({ command, queue: 'fp' });
      const c = await h().claimOne(slot, { queues: ['fp'] });
      expect(c.token).toBe(token);
      expect(await h().kill(c, message, number)).toBe(true);
      return token;
    };

    it('groups failures differing only by ids into one group, pages the groups, and retries a group', async () => {
      const { store } = h();
      const slot = await h().worker();
      const tokens: string[] = [];
      for (let i = 0; i < 12; i++) tokens.push(await die(slot, `order ${1000 + i} failed for '${crypto.randomUUID()}'`, 547));
      await die(slot, 'order 1 failed', 2627);
      await die(slot, 'order 1 failed', 547, 'demo.other');

      const page = await store.reads.failureGroupPage({ queue: 'fp', limit: 2 });
      expect(page.items).toHaveLength(2);
      expect(page.nextCursor).toBe(2);
      const big = page.items[0]!;
      expect(big).toMatchObject({ count: 12, command: 'demo.fail', queue: 'fp', errorNumber: 547 });
      expect(big.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(big.trend).toHaveLength(24);
      expect(big.trend.reduce((a, b) => a + b, 0)).toBe(12);
      expect(big.firstAt.getTime()).toBeLessThanOrEqual(big.lastAt.getTime());
      const rest = await store.reads.failureGroupPage({ queue: 'fp', limit: 2, cursor: page.nextCursor! });
      expect(rest.items).toHaveLength(1);
      expect(rest.nextCursor).toBeNull();

      const n = await store.commands.retryFailed({ queue: 'fp', fingerprint: big.fingerprint, command: 'demo.fail' });
      expect(n.retried).toBe(12);
      for (const t of tokens) expect(await h().status(t)).toBe('pending');
      const after = await store.reads.failureGroupPage({ queue: 'fp' });
      expect(after.items.map((g) => g.count)).toEqual([1, 1]);
    });

    it('fingerprints a task made dead without a settlement (lease rescue) when the groups are read', async () => {
      const { store } = h();
      const slot = await h().worker();
      const lost: string[] = [];
      for (let i = 0; i < 2; i++) {
        const token = await h().add({ queue: 'lost', maxAttempts: 1 });
        expect((await h().claimOne(slot, { queues: ['lost'], leaseMs: 50 })).token).toBe(token);
        lost.push(token);
      }
      await sleep(150);
      expect(await store.maintenance.rescueExpired()).toMatchObject({ dead: 2 });
      const page = await store.reads.failureGroupPage({ queue: 'lost' });
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({ count: 2, queue: 'lost' });
      expect(page.items[0]!.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect((await store.commands.retryFailed({ queue: 'lost', fingerprint: page.items[0]!.fingerprint })).retried).toBe(2);
    });
  });
}
