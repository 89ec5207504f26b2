// Pruning: terminal tasks finished before a cutoff go, with their ExecutionLog rows.
import { describe, expect, it } from 'vitest';
import { sleep, useStore, type StoreFactory } from './harness';

export function pruningTests(factory: StoreFactory) {
  describe('pruning', () => {
    const h = useStore(factory);

    it('deletes old terminal tasks and their attempts; keeps live and recent ones', async () => {
      const { store } = h();
      const slot = await h().worker();
      // old: succeeded after a retry (2 log rows), dead (1), cancelled while pending (0)
      const oldDone = await h().add();
      const c1 = await h().claimOne(slot);
      expect(await h().retryLater(c1, 0)).toBe(true);
      const c2 = await h().claimOne(slot);
      expect(c2.token).toBe(oldDone);
      expect(await h().succeed(c2)).toBe(true);
      const oldDead = await h().deadTask(slot, 'old failure');
      const oldCancelled = await h().add();
      expect(await store.commands.cancel(oldCancelled)).toBe('cancelled');
      // created before the cutoff but still live
      const oldPending = await h().add({ runAt: new Date(Date.now() + 60_000) });
      const running = await h().add({ queue: 'busy' });
      const runner = await h().worker();
      await h().claimOne(runner, { queues: ['busy'] });

      // the store's clock, not this machine's: finished_at is the store's
      await sleep(60);
      const cutoff = new Date(await h().storeNow(slot));
      await sleep(60);

      const recentDone = await h().doneTask(slot);
      const recentDead = await h().deadTask(slot, 'new failure');

      expect(await store.maintenance.prune(cutoff)).toEqual({ tasks: 3, attempts: 3 });
      for (const t of [oldDone, oldDead, oldCancelled]) expect(await store.reads.getTask(t)).toBeNull();
      for (const t of [oldPending, running, recentDone, recentDead]) expect(await store.reads.getTask(t)).not.toBeNull();
      expect(await h().status(running)).toBe('running');

      const attempts = await store.reads.listAttempts({ limit: 100 });
      expect(new Set(attempts.items.map((a) => a.token))).toEqual(new Set([running, recentDone, recentDead]));
      expect(attempts.items).toHaveLength(3);

      // pruning again finds nothing
      expect(await store.maintenance.prune(cutoff)).toEqual({ tasks: 0, attempts: 0 });
      expect(await h().counts()).toEqual(
        await h().expectedCounts([oldDone, oldDead, oldCancelled, oldPending, running, recentDone, recentDead]),
      );
    });

    it('a cutoff in the future prunes every terminal task and nothing else', async () => {
      const { store } = h();
      const slot = await h().worker();
      const done = await h().doneTask(slot);
      const pending = await h().add();
      const r = await store.maintenance.prune(new Date(Date.now() + 60_000));
      expect(r).toEqual({ tasks: 1, attempts: 1 });
      expect(await store.reads.getTask(done)).toBeNull();
      expect(await h().status(pending)).toBe('pending');
    });
  });
}
