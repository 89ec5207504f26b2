// Kept aggregates: dead tasks by failure (the filters of retryFailed / deleteFailed) and the per-second metrics series.
import { describe, expect, it } from 'vitest';
import type { MetricPoint } from '../../lib/engine/types';
import { LONG_LEASE, useStore, type StoreFactory } from './harness';

function sums(points: MetricPoint[]) {
  return points.reduce(
    (s, p) => ({
      enqueued: s.enqueued + p.enqueued,
      started: s.started + p.started,
      succeeded: s.succeeded + p.succeeded,
      failed: s.failed + p.failed,
    }),
    { enqueued: 0, started: 0, succeeded: 0, failed: 0 },
  );
}

export function aggregateTests(factory: StoreFactory) {
  describe('dead tasks by failure', () => {
    const h = useStore(factory);

    it('retryFailed and deleteFailed take the dead tasks of a message or a queue', async () => {
      const { store } = h();
      const slot = await h().worker();
      for (const queue of ['q1', 'q1', 'q1', 'q2']) await h().deadTask(slot, 'disk full', { queue, command: 'demo.fail' });
      await h().deadTask(slot, 'bad input', { queue: 'q1', command: 'demo.fail' });
      await h().deadTask(slot, 'bad input', { queue: 'q1', command: 'demo.fail' });
      // not dead: a failed attempt that will be retried, a success, a cancel
      await h().add({ queue: 'q1', command: 'demo.fail' });
      const c = await h().claimOne(slot, { queues: ['q1'] });
      expect(await h().retryLater(c, 60_000, 'transient')).toBe(true);
      await h().doneTask(slot, { queue: 'q1' });
      expect(await store.commands.cancel(await h().add({ queue: 'q1' }))).toBe('cancelled');

      expect((await store.commands.retryFailed({ message: 'bad input' })).retried).toBe(2);
      expect(await store.commands.deleteFailed({ queue: 'q2' })).toBe(1);
    });

    it('two messages or commands differing only in case are two groups and two filters (compared binary, as names are)', async () => {
      const { store } = h();
      const slot = await h().worker();
      await h().deadTask(slot, 'Disk full', { queue: 'cs', command: 'demo.fail' });
      await h().deadTask(slot, 'disk full', { queue: 'cs', command: 'demo.fail' });
      await h().deadTask(slot, 'disk full', { queue: 'cs', command: 'demo.fail' });
      await h().deadTask(slot, 'disk full', { queue: 'cs', command: 'Demo.Fail' });
      const page = await store.reads.failureGroupPage({ command: 'demo.fail' });
      expect(page.items.map((g) => [g.command, g.count]).sort()).toEqual([
        ['demo.fail', 1],
        ['demo.fail', 2],
      ]);
      expect((await store.commands.retryFailed({ message: 'Disk full' })).retried).toBe(1);
      expect(await store.commands.deleteFailed({ command: 'Demo.Fail' })).toBe(1);
    });
  });

  describe('metrics', () => {
    const h = useStore(factory);

    it('has per-second points whose counts add up to what happened', async () => {
      const { store } = h();
      const since = new Date(Date.now() - 2000);
      const slot = await h().worker();
      await store.commands.enqueueMany([0, 1, 2].map((i) => ({ kind: 'handler' as const, command: 'demo.echo', payload: { i } })));
      await h().add();
      const claimed = await store.worker.claim([slot, await h().worker(), await h().worker()], { leaseMs: LONG_LEASE });
      expect(claimed).toHaveLength(3);
      expect(await h().succeed(claimed[0]!)).toBe(true);
      expect(await h().kill(claimed[1]!, 'metric failure')).toBe(true);

      const points = await store.reads.metrics(since);
      expect(sums(points)).toEqual({ enqueued: 4, started: 3, succeeded: 1, failed: 1 });
      const times = points.map((p) => p.at.getTime());
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(new Set(times).size).toBe(times.length);
      for (const p of points) {
        expect(p.at).toBeInstanceOf(Date);
        expect(p.at.getTime() % 1000).toBe(0);
        expect(p.at.getTime()).toBeGreaterThanOrEqual(since.getTime() - 1000);
        expect(p.at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
        expect(p.latencySumMs).toBeGreaterThanOrEqual(0);
        expect(p.latencyMaxMs).toBeGreaterThanOrEqual(0);
        expect(p.latencyMaxMs).toBeLessThanOrEqual(p.latencySumMs + 1);
        if (p.started === 0) expect(p.latencySumMs).toBe(0);
      }
      expect(sums(await store.reads.metrics(new Date(Date.now() + 5_000)))).toEqual({ enqueued: 0, started: 0, succeeded: 0, failed: 0 });
    });

    it('counts a retry settlement as a failure and the next attempt as a start', async () => {
      const { store } = h();
      const since = new Date(Date.now() - 2000);
      const slot = await h().worker();
      await h().add();
      const c1 = await h().claimOne(slot);
      expect(await h().retryLater(c1, 0)).toBe(true);
      const c2 = await h().claimOne(slot);
      expect(await h().succeed(c2)).toBe(true);
      expect(sums(await store.reads.metrics(since))).toEqual({ enqueued: 1, started: 2, succeeded: 1, failed: 1 });
    });

    it('sampleDepth records the pending count', async () => {
      const { store } = h();
      const since = new Date(Date.now() - 2000);
      for (let i = 0; i < 4; i++) await h().add();
      await h().claimOne(await h().worker());
      await store.maintenance.sampleDepth();
      const sampled = (await store.reads.metrics(since)).filter((p) => p.depth !== null);
      expect(sampled.length).toBeGreaterThanOrEqual(1);
      expect(sampled[sampled.length - 1]!.depth).toBe(3);
    });

    it('a depth sample holds until the next one: the reads carry it forward from before their range', async () => {
      const { store } = h();
      for (let i = 0; i < 2; i++) await h().add();
      await store.maintenance.sampleDepth();
      // a range after the sample, with no sample of its own (an idle store writes none): the depth in force is 2
      const later = new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000);
      const points = await store.reads.metrics(later);
      expect(points[0]).toMatchObject({ at: later, depth: 2, enqueued: 0, started: 0 });
      const seconds = await store.reads.history({ from: later, to: new Date(later.getTime() + 4000), bucketMs: 1000 });
      expect(seconds.buckets.map((b) => b.depth)).toEqual([2, 2, 2, 2]);
      const minute = new Date(Math.ceil((Date.now() + 1000) / 60_000) * 60_000);
      const minutes = await store.reads.history({ from: minute, to: new Date(minute.getTime() + 3 * 60_000), bucketMs: 60_000 });
      expect(minutes.buckets.map((b) => b.depth)).toEqual([2, 2, 2]);
    });
  });
}
