// A task cancelled while its parents went on settling, then retried: it counts its edges as its parents stand
// at the retry — a `run` parent that died meanwhile is done, a parent retried meanwhile is not — so it neither
// waits for a dead `run` parent nor starts before a parent it had once been let through by.
import { describe, expect, it } from 'vitest';
import { type StoreFactory, useStore } from './harness';

export function workflowRearmTests(factory: StoreFactory): void {
  describe('workflows: a cancelled child retried after its parents moved on', () => {
    const h = useStore(factory);

    it('a run parent that died while the child was cancelled counts as done at the retry', async () => {
      const { store } = h();
      const slot = await h().worker();
      const runParent = await h().add({ queue: 'rb' });
      const other = await h().add({ queue: 'ra' });
      const child = await h().add({
        queue: 'rc',
        dependsOn: [
          { token: runParent, onParentFailure: 'run' },
          { token: other, onParentFailure: 'cancel' },
        ],
      });
      expect(await store.commands.cancel(child)).toBe('cancelled');
      const b = await h().claimOne(slot, { queues: ['rb'] });
      expect(await h().kill(b)).toBe(true);
      expect(await store.commands.retry(child)).toBe('retried');
      expect(await h().task(child)).toMatchObject({ status: 'waiting', parentCount: 2, parentsLeft: 1 });
      const a = await h().claimOne(slot, { queues: ['ra'] });
      expect(await h().succeed(a)).toBe(true);
      expect(await h().task(child)).toMatchObject({ status: 'pending', parentsLeft: 0 });
    });

    it('a run parent retried while the child was cancelled holds the child back again at its retry', async () => {
      const { store } = h();
      const slot = await h().worker();
      const parent = await h().deadTask(slot, 'first try', { queue: 'rp' });
      const child = await h().add({ queue: 'rq', dependsOn: [{ token: parent, onParentFailure: 'run' }] });
      expect(await h().task(child)).toMatchObject({ status: 'pending', parentsLeft: 0 });
      expect(await store.commands.cancel(child)).toBe('cancelled');
      expect(await store.commands.retry(parent)).toBe('retried');
      expect(await store.commands.retry(child)).toBe('retried');
      expect(await h().task(child)).toMatchObject({ status: 'waiting', parentsLeft: 1 });
      await h().claimNone(slot, { queues: ['rq'] });
      const p = await h().claimOne(slot, { queues: ['rp'] });
      expect(await h().succeed(p)).toBe(true);
      expect((await h().claimOne(slot, { queues: ['rq'] })).token).toBe(child);
    });
  });
}
