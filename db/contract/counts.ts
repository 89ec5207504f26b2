// countsByQueue is kept incrementally: it must equal what the tasks are after every kind of transition.
import { describe, expect, it } from 'vitest';
import { err, LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';

export function countsTests(factory: StoreFactory) {
  describe('counts by queue', () => {
    const h = useStore(factory);

    it('is empty for an empty store', async () => {
      expect(await h().counts()).toEqual([]);
    });

    it('follows every transition', async () => {
      const { store } = h();
      const tokens = new Set<string>();
      const check = async (step: string) => {
        expect(await h().counts(), step).toEqual(await h().expectedCounts(tokens));
      };
      const add = async (queue: string, extra: { maxAttempts?: number; dedupKey?: string } = {}) => {
        const t = await h().add({ queue, ...extra });
        tokens.add(t);
        return t;
      };
      const w1 = await h().worker();
      const w2 = await h().worker();

      // enqueue, bulk enqueue, a dedup hit
      const a1 = await add('a', { dedupKey: 'once' });
      const a2 = await add('a', { maxAttempts: 1 });
      const a3 = await add('a');
      for (const r of await store.commands.enqueueMany([
        { kind: 'handler', command: 'demo.echo', queue: 'b' },
        { kind: 'handler', command: 'demo.echo', queue: 'b', maxAttempts: 1 },
        { kind: 'handler', command: 'demo.echo', queue: 'b' },
      ]))
        tokens.add(r.token);
      expect((await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', queue: 'a', dedupKey: 'once' })).created).toBe(false);
      await check('after enqueue');
      expect(await h().counts()).toEqual([
        { queue: 'a', waiting: 0, pending: 3, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
        { queue: 'b', waiting: 0, pending: 3, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
      ]);

      // claim, succeed, retry
      const ca1 = await h().claimOne(w1, { queues: ['a'] });
      expect(ca1.token).toBe(a1);
      await check('after claim');
      expect(await h().succeed(ca1)).toBe(true);
      await check('after success');
      const ca2 = await h().claimOne(w1, { queues: ['a'] });
      expect(ca2.token).toBe(a2);
      expect(await h().settle(ca2, { kind: 'retry', outcome: 'failed', error: err('again'), runAfter: new Date() })).toBe(true);
      await check('after retry settlement');

      // lease rescue: once back to pending, once to dead (a2 has maxAttempts 1 but got a retry settlement: now attempt 2)
      const cb = await store.worker.claim([w1, w2], { leaseMs: 80, queues: ['b'] });
      expect(cb).toHaveLength(2);
      await check('after bulk claim');
      await sleep(200);
      const rescued = await store.maintenance.rescueExpired();
      expect(rescued.retried + rescued.dead).toBe(2);
      expect(rescued.dead).toBe(1);
      await check('after rescue');

      // dead by settlement; cancel pending; cancel running
      const cDead = await h().claimOne(w1, { queues: ['a'] });
      expect(await h().kill(cDead, 'poison')).toBe(true);
      await check('after dead settlement');
      const pendingB = (await store.reads.listTasks({ queue: 'b', status: 'pending', limit: 10 })).items;
      expect(pendingB.length).toBeGreaterThanOrEqual(2);
      expect(await store.commands.cancel(pendingB[0]!.token)).toBe('cancelled');
      await check('after cancelling a pending task');
      const cRun = await h().claimOne(w2, { queues: ['b'] });
      expect(await store.commands.cancel(cRun.token)).toBe('cancel_requested');
      await check('after requesting a cancel');
      expect(await h().settle(cRun, { kind: 'cancelled', error: null })).toBe(true);
      await check('after the cancelled settlement');

      // manual retry of dead and cancelled, retryFailed
      expect(await store.commands.retry(cDead.token)).toBe('retried');
      await check('after manual retry of a dead task');
      expect(await store.commands.retry(cRun.token)).toBe('retried');
      await check('after manual retry of a cancelled task');
      const deadNow = (await store.reads.listTasks({ status: 'dead', limit: 10 })).items;
      expect((await store.commands.retryFailed({})).retried).toBe(deadNow.length);
      await check('after retryFailed');

      // delete, deleteFailed, prune
      expect(await store.commands.deleteTask(a1)).toBe('deleted');
      await check('after delete');
      const c = await h().claimOne(w1, { queues: ['a'] });
      expect(await h().kill(c, 'to delete')).toBe(true);
      await check('before deleteFailed');
      expect(await store.commands.deleteFailed({ message: 'to delete' })).toBe(1);
      await check('after deleteFailed');
      const d = await h().claimOne(w1);
      expect(d.token).toBe(a3);
      expect(await h().succeed(d)).toBe(true);
      const e = await h().claimOne(w1);
      expect(await h().succeed(e)).toBe(true);
      await check('before prune');
      const pruned = await store.maintenance.prune(new Date(Date.now() + 60_000));
      // two succeeded, one cancelled
      expect(pruned.tasks).toBe(3);
      await check('after prune');
      const left = await h().counts();
      const total = left.reduce((n, r) => n + r.pending + r.running + r.succeeded + r.dead + r.cancelled, 0);
      expect(left.every((r) => r.succeeded === 0 && r.dead === 0 && r.cancelled === 0)).toBe(true);
      expect(total).toBe(1);
    });

    it('stays exact while writers on several sessions and pruning run at once', async () => {
      // On SQL Server the writers' counts land in the slots of their sessions and pruning deletes rows
      // at zero meanwhile (rows the writers may be re-creating): the sums must still be exact.
      const { store } = h();
      const tokens = new Set<string>();
      const queues = ['c1', 'c2', 'c3'];
      const slots = await Promise.all([1, 2, 3, 4].map(() => h().worker()));
      let stop = false;
      const pruner = (async () => {
        let rounds = 0;
        while (!stop) {
          await store.maintenance.prune(new Date(Date.now() + 60_000));
          rounds++;
          await sleep(5);
        }
        return rounds;
      })();
      try {
        await Promise.all(
          slots.map(async (slot, i) => {
            for (let round = 0; round < 12; round++) {
              const queue = queues[(i + round) % queues.length]!;
              tokens.add(await h().add({ queue, maxAttempts: 2 }));
              for (const c of await store.worker.claim([slot], { leaseMs: LONG_LEASE, queues: [queue] })) {
                if (round % 3 === 0) expect(await h().succeed(c)).toBe(true);
                else if (round % 3 === 1) expect(await h().kill(c, 'poison')).toBe(true);
                else expect(await h().retryLater(c, 0)).toBe(true);
              }
            }
          }),
        );
      } finally {
        stop = true;
      }
      expect(await pruner).toBeGreaterThan(0);
      expect(await h().counts()).toEqual(await h().expectedCounts(tokens));
    });
  });
}
