// The reads "why isn't it running?" and the Running page rest on: the payload preview of running attempts
// (listRunning, bounded), who paused a queue and when (queueChanges), who holds a full limit's tokens
// (listTokens), and which workers are live and busy (listWorkers).
import { describe, expect, it } from 'vitest';
import { type StoreFactory, useStore } from './harness';

export function whyTests(factory: StoreFactory): void {
  describe('why: the facts behind "why isn\'t it running?"', () => {
    const h = useStore(factory);

    it('listRunning carries a bounded payload preview', async () => {
      const { store } = h();
      const w1 = await h().worker('why-runner-1');
      const w2 = await h().worker('why-runner-2');
      const w3 = await h().worker('why-runner-3');
      const small = await h().add({ queue: 'wa', payload: { order: 42, note: 'héllo' } });
      const big = await h().add({ queue: 'wb', payload: { blob: 'x'.repeat(1000) } });
      const none = await h().add({ queue: 'wc', payload: null });
      await h().claimOne(w1, { queues: ['wa'] });
      await h().claimOne(w2, { queues: ['wb'] });
      await h().claimOne(w3, { queues: ['wc'] });
      const rows = new Map((await store.reads.listRunning()).map((r) => [r.token, r]));
      expect(JSON.parse(rows.get(small)!.payloadPreview!)).toEqual({ order: 42, note: 'héllo' });
      const cut = rows.get(big)!.payloadPreview!;
      expect(cut.length).toBeLessThanOrEqual(201);
      expect(cut.startsWith('{"blob":"xxx')).toBe(true);
      expect(cut.endsWith('…')).toBe(true);
      expect(rows.get(none)!.payloadPreview ?? null).toBeNull();
    });

    it('a paused queue: the newest pause names who and when; a full limit names its holders', async () => {
      const { store } = h();
      await store.commands.setQueue('wp', { paused: true }, 'alice');
      await store.commands.setQueue('wp', { paused: false }, 'bob');
      await store.commands.setQueue('wp', { paused: true }, 'carol');
      const pause = (await store.reads.queueChanges('wp', 50)).find((c) => c.field === 'paused' && c.newValue === 'true');
      expect(pause).toMatchObject({ changedBy: 'carol' });
      expect(pause!.at).toBeInstanceOf(Date);

      await store.commands.setQueue('wl', { concurrencyLimit: 1 }, 'alice');
      const w = await h().worker('why-holder');
      const held = await h().add({ queue: 'wl' });
      await h().add({ queue: 'wl' });
      await h().claimOne(w, { queues: ['wl'] });
      const q = (await store.reads.listQueues()).find((v) => v.name === 'wl')!;
      expect(q).toMatchObject({ concurrencyLimit: 1, granted: 1, pending: 1 });
      const granted = (await store.reads.listTokens('wl')).filter((t) => t.status === 'granted');
      expect(granted).toMatchObject([{ token: held, workerId: 'why-holder' }]);
      const worker = (await store.reads.listWorkers()).find((x) => x.workerId === 'why-holder')!;
      expect(worker.state).toBe('running');
      expect(worker.currentTask?.token).toBe(held);
    });
  });
}
