// Claiming: one task per slot, order (priority, then age), delayed tasks, queue filter.
import { describe, expect, it } from 'vitest';
import { LONG_LEASE, useStore, type StoreFactory } from './harness';

export function claimTests(factory: StoreFactory) {
  describe('claim', () => {
    const h = useStore(factory);

    it('returns nothing when there is nothing to do', async () => {
      const a = await h().worker();
      const b = await h().worker();
      expect(await h().store.worker.claim([a, b], { leaseMs: LONG_LEASE })).toEqual([]);
    });

    it('gives at most one task per slot, each to a different slot', async () => {
      const { store } = h();
      for (let i = 0; i < 5; i++) await h().add({ payload: { i } });
      const slots = [await h().worker(), await h().worker(), await h().worker()];
      const got = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(got).toHaveLength(3);
      expect(new Set(got.map((c) => c.id)).size).toBe(3);
      expect(new Set(got.map((c) => c.workerId))).toEqual(new Set(slots.map((s) => s.workerId)));
      for (const c of got) {
        const slot = slots.find((s) => s.workerId === c.workerId)!;
        expect(c.session).toBe(slot.session);
        expect(c.attempt).toBe(1);
        const t = await h().task(c.token);
        expect(t.status).toBe('running');
        expect(t.workerId).toBe(c.workerId);
      }
      // the oldest three went first
      expect(got.map((c) => (c.payload as { i: number }).i).sort()).toEqual([0, 1, 2]);
      for (const c of got) expect(await h().succeed(c)).toBe(true);

      const rest = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(rest).toHaveLength(2);
      expect(await store.worker.claim(slots, { leaseMs: LONG_LEASE })).toEqual([]);
      const all = [...got, ...rest].map((c) => c.id);
      expect(new Set(all).size).toBe(5);
    });

    it('never hands the same task to two concurrent claims', async () => {
      const { store } = h();
      await store.commands.enqueueMany(
        Array.from({ length: 30 }, (_, i) => ({ kind: 'handler' as const, command: 'demo.echo', payload: { i } })),
      );
      const slots = await Promise.all(Array.from({ length: 6 }, () => h().worker()));
      const rounds = await Promise.all(slots.map((s) => store.worker.claim([s], { leaseMs: LONG_LEASE })));
      for (const c of rounds.flat()) expect(await h().succeed(c)).toBe(true);
      const more = await Promise.all(slots.map((s) => store.worker.claim([s], { leaseMs: LONG_LEASE })));
      const ids = [...rounds, ...more].flat().map((c) => c.id);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
    });

    it('takes higher priority first, then the oldest', async () => {
      const order = [
        { name: 'p0-first', priority: 0 },
        { name: 'p5-first', priority: 5 },
        { name: 'p-3', priority: -3 },
        { name: 'p5-second', priority: 5 },
        { name: 'p1', priority: 1 },
        { name: 'p0-second', priority: 0 },
      ];
      for (const o of order) await h().add({ payload: o.name, priority: o.priority });
      const slot = await h().worker();
      const seen: unknown[] = [];
      for (let i = 0; i < order.length; i++) {
        const c = await h().claimOne(slot);
        seen.push(c.payload);
        expect(c.priority).toBe(order.find((o) => o.name === c.payload)!.priority);
        expect(await h().succeed(c)).toBe(true);
      }
      expect(seen).toEqual(['p5-first', 'p5-second', 'p1', 'p0-first', 'p0-second', 'p-3']);
    });

    it('does not claim a delayed task before its runAt', async () => {
      const slot = await h().worker();
      // due 2 s after the store's own clock: every "not yet" below is a few round trips, far inside that
      const runAt = new Date((await h().storeNow(slot)) + 2_000);
      const token = await h().add({ runAt });
      expect((await h().task(token)).runAfter.getTime()).toBe(runAt.getTime());
      await h().claimNone(slot);
      // a task due now is taken while the delayed one waits
      const now = await h().add();
      const first = await h().claimOne(slot);
      expect(first.token).toBe(now);
      expect(await h().succeed(first)).toBe(true);
      await h().claimNone(slot);
      await h().untilStoreTime(slot, runAt.getTime());
      const c = await h().claimOne(slot);
      expect(c.token).toBe(token);
      expect(c.runAfter.getTime()).toBe(runAt.getTime());
    });

    it('a runAt in the past is claimable at once', async () => {
      const slot = await h().worker();
      const token = await h().add({ runAt: new Date(Date.now() - 60_000) });
      expect((await h().claimOne(slot)).token).toBe(token);
    });

    it('claims only from the queues asked for', async () => {
      const slot = await h().worker();
      const a = await h().add({ queue: 'alpha' });
      const b = await h().add({ queue: 'beta' });
      const c = await h().add({ queue: 'gamma' });
      await h().claimNone(slot, { queues: ['nothing-here'] });
      const cb = await h().claimOne(slot, { queues: ['beta'] });
      expect(cb.token).toBe(b);
      expect(await h().succeed(cb)).toBe(true);
      await h().claimNone(slot, { queues: ['beta'] });
      const two = await h().store.worker.claim([slot, await h().worker()], { leaseMs: LONG_LEASE, queues: ['alpha', 'gamma'] });
      expect(new Set(two.map((t) => t.token))).toEqual(new Set([a, c]));
      expect(two.find((t) => t.token === a)!.queue).toBe('alpha');
    });

    it('without a queue filter claims from every queue', async () => {
      const slot = await h().worker();
      const tokens = new Set([await h().add({ queue: 'one' }), await h().add({ queue: 'two' })]);
      const got = new Set<string>();
      for (let i = 0; i < 2; i++) {
        const c = await h().claimOne(slot);
        got.add(c.token);
        expect(await h().succeed(c)).toBe(true);
      }
      expect(got).toEqual(tokens);
    });
  });
}
