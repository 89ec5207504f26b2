// Dedup keys: unique among non-terminal tasks.
import { describe, expect, it } from 'vitest';
import { useStore, type StoreFactory } from './harness';

export function dedupTests(factory: StoreFactory) {
  describe('dedup', () => {
    const h = useStore(factory);

    it('returns the existing token while the first task is pending or running', async () => {
      const { store } = h();
      const first = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: 1, dedupKey: 'nightly' });
      expect(first.created).toBe(true);
      const again = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: 2, dedupKey: 'nightly' });
      expect(again).toEqual({ token: first.token, created: false });
      // the duplicate changed nothing
      expect((await h().task(first.token)).payload).toBe(1);
      expect(await h().counts()).toEqual([
        { queue: 'default', waiting: 0, pending: 1, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
      ]);

      const slot = await h().worker();
      await h().claimOne(slot);
      const whileRunning = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', dedupKey: 'nightly' });
      expect(whileRunning).toEqual({ token: first.token, created: false });
      await h().claimNone(await h().worker());
    });

    it('names compare case-sensitively, as in every store: dedup keys, queues, handler names', async () => {
      const { store } = h();
      // dedup keys: `A` and `a` are two keys
      const upper = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, dedupKey: 'A' });
      const lower = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: null, dedupKey: 'a' });
      expect(lower.created).toBe(true);
      expect(lower.token).not.toBe(upper.token);
      // queues: `Reports` and `reports` are two queues, each with its own settings, counts and claims
      await store.commands.setQueue('Reports', { paused: true }, 'contract');
      const mine = await h().add({ queue: 'reports' });
      await h().add({ queue: 'Reports' });
      const queues = (await store.reads.listQueues()).filter((q) => q.name.toLowerCase() === 'reports');
      expect(queues.map((q) => [q.name, q.paused]).sort()).toEqual([
        ['Reports', true],
        ['reports', false],
      ]);
      const counts = (await h().counts()).filter((c) => c.queue.toLowerCase() === 'reports');
      expect(counts.map((c) => [c.queue, c.pending]).sort()).toEqual([
        ['Reports', 1],
        ['reports', 1],
      ]);
      const slot = await h().worker();
      expect((await h().claimOne(slot, { queues: ['reports'] })).token).toBe(mine);
      await h().claimNone(slot, { queues: ['reports', 'REPORTS'] });
      // handler names
      await store.worker.registerHandlers(['Case.Echo', 'case.echo']);
      expect((await store.reads.knownHandlers()).filter((n) => n.toLowerCase() === 'case.echo').sort()).toEqual(['Case.Echo', 'case.echo']);
    });

    it('creates a new task once the first one is finished', async () => {
      const { store } = h();
      const slot = await h().worker();
      const tokens = new Set<string>();
      for (const end of ['succeeded', 'dead', 'cancelled'] as const) {
        const r = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', dedupKey: 'key' });
        expect(r.created).toBe(true);
        tokens.add(r.token);
        if (end === 'cancelled') {
          expect(await store.commands.cancel(r.token)).toBe('cancelled');
        } else {
          const c = await h().claimOne(slot);
          expect(c.token).toBe(r.token);
          expect(end === 'succeeded' ? await h().succeed(c) : await h().kill(c)).toBe(true);
        }
        expect(await h().status(r.token)).toBe(end);
      }
      const last = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', dedupKey: 'key' });
      expect(last.created).toBe(true);
      tokens.add(last.token);
      expect(tokens.size).toBe(4);
    });

    it('different keys and absent keys never collide', async () => {
      const { store } = h();
      const a = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', dedupKey: 'a' });
      const b = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', dedupKey: 'b' });
      const n1 = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', dedupKey: null });
      const n2 = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo' });
      for (const r of [a, b, n1, n2]) expect(r.created).toBe(true);
      expect(new Set([a.token, b.token, n1.token, n2.token]).size).toBe(4);
    });

    it('enqueueMany honours dedup keys, in input order', async () => {
      const { store } = h();
      const existing = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', dedupKey: 'k1' });
      const rs = await store.commands.enqueueMany([
        { kind: 'handler', command: 'demo.echo', dedupKey: 'k1' },
        { kind: 'handler', command: 'demo.echo', dedupKey: 'k2' },
        { kind: 'handler', command: 'demo.echo' },
      ]);
      expect(rs[0]).toEqual({ token: existing.token, created: false });
      expect(rs[1]!.created).toBe(true);
      expect(rs[2]!.created).toBe(true);
      expect((await h().task(rs[1]!.token)).dedupKey).toBe('k2');
      expect((await h().counts())[0]!.pending).toBe(3);
    });

    describe('retrying dead tasks that share a dedup key', () => {
      /** two dead tasks of key k1 (older, newer), one of k2 whose key a pending task holds, one without a key */
      async function deadTasks() {
        const slot = await h().worker();
        const older = await h().deadTask(slot, 'boom', { dedupKey: 'k1', maxAttempts: 1 });
        const newer = await h().deadTask(slot, 'boom', { dedupKey: 'k1', maxAttempts: 1 });
        const k2 = await h().deadTask(slot, 'boom', { dedupKey: 'k2', maxAttempts: 1 });
        const free = await h().deadTask(slot, 'boom', { maxAttempts: 1 });
        const holder = await h().add({ dedupKey: 'k2' });
        return { older, newer, k2, holder, free };
      }

      it('retryFailed takes the newest dead task per key, skips the rest and a key an unfinished task holds', async () => {
        const { store } = h();
        const t = await deadTasks();
        expect(await store.commands.retryFailed({})).toEqual({ retried: 2, skipped: { dedupKeyHeld: 2 } });
        expect(await Promise.all([t.older, t.newer, t.k2, t.holder, t.free].map((x) => h().status(x)))).toEqual([
          'dead',
          'pending',
          'dead',
          'pending',
          'pending',
        ]);
        // again: nothing left to retry, the same two still skipped
        expect(await store.commands.retryFailed({})).toEqual({ retried: 0, skipped: { dedupKeyHeld: 2 } });
      });

      it('a bulk retry follows the same rule', async () => {
        const { store } = h();
        const t = await deadTasks();
        const o = await store.commands.bulk('retry', [t.older, t.newer, t.k2, t.free], {});
        expect(o).toEqual({ done: 2, skipped: 2, missing: 0, dedupKeyHeld: 2 });
        expect(await h().status(t.newer)).toBe('pending');
        expect(await h().status(t.older)).toBe('dead');
        expect(await h().status(t.k2)).toBe('dead');
      });

      it('a single retry of a dead task whose key is held names the holder', async () => {
        const { store } = h();
        const t = await deadTasks();
        expect(await store.commands.retry(t.k2)).toEqual({ result: 'dedup_key_held', dedupKey: 'k2', token: t.holder, status: 'pending' });
        expect(await h().status(t.k2)).toBe('dead');
        expect(await store.commands.retry(t.newer)).toBe('retried');
        expect(await store.commands.retry(t.older)).toEqual({
          result: 'dedup_key_held',
          dedupKey: 'k1',
          token: t.newer,
          status: 'pending',
        });
      });
    });
  });
}
