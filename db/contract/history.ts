// Contract tests: history. The per-minute rollups written by enqueue, claim and settlement agree with the
// raw ExecutionLog (counts per queue and command, durations within the histogram's resolution), the
// cumulative totals agree with them, and a read filtered by queue or command sees only its own.
import { describe, expect, it } from 'vitest';
import { HIST_BOUNDS_MS, histBucket, type HistoryBucket } from '../../lib/engine/history';
import type { AttemptView } from '../../lib/engine/types';
import { useStore, type StoreFactory } from './harness';

function total(buckets: HistoryBucket[], key: 'enqueued' | 'started' | 'succeeded' | 'failed' | 'dead'): number {
  return buckets.reduce((s, b) => s + (b[key] ?? 0), 0);
}

async function allAttempts(h: ReturnType<ReturnType<typeof useStore>>): Promise<AttemptView[]> {
  const out: AttemptView[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await h.store.reads.listAttempts({ cursor, limit: 500 });
    out.push(...page.items);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

export function historyTests(factory: StoreFactory): void {
  describe('history rollups', () => {
    const h = useStore(factory);

    it('agree with the execution log per queue and command', async () => {
      const { store } = h();
      const slot = await h().worker();
      const plan = [
        { queue: 'hq1', command: 'hist.a', outcome: 'ok' },
        { queue: 'hq1', command: 'hist.a', outcome: 'ok' },
        { queue: 'hq1', command: 'hist.b', outcome: 'dead' },
        { queue: 'hq2', command: 'hist.a', outcome: 'retry' },
        { queue: 'hq2', command: 'hist.c', outcome: 'ok' },
        { queue: 'hq2', command: 'hist.c', outcome: 'dead' },
        { queue: 'hq2', command: 'hist.c', outcome: 'pending' },
      ] as const;
      const t0 = Date.now();
      for (const p of plan) {
        await h().add({ queue: p.queue, command: p.command });
        if (p.outcome === 'pending') continue;
        const c = await h().claimOne(slot, { queues: [p.queue] });
        if (p.outcome === 'ok') expect(await h().succeed(c)).toBe(true);
        else if (p.outcome === 'dead') expect(await h().kill(c)).toBe(true);
        else expect(await h().retryLater(c, 3_600_000)).toBe(true);
      }
      const from = new Date(Math.floor(t0 / 60_000) * 60_000 - 60_000);
      const to = new Date(Date.now() + 120_000);
      const all = await store.reads.history({ from, to, bucketMs: 60_000 });
      const log = await allAttempts(h());
      const ended = log.filter((a) => a.endedAt !== null);

      expect(total(all.buckets, 'enqueued')).toBe(plan.length);
      expect(total(all.buckets, 'started')).toBe(log.length);
      expect(total(all.buckets, 'succeeded')).toBe(ended.filter((a) => a.outcome === 'succeeded').length);
      expect(total(all.buckets, 'failed')).toBe(ended.filter((a) => a.outcome !== 'succeeded' && a.outcome !== 'cancelled').length);
      expect(total(all.buckets, 'dead')).toBe(2);
      expect(all.queues).toEqual(expect.arrayContaining(['hq1', 'hq2']));
      expect(all.commands).toEqual(expect.arrayContaining(['hist.a', 'hist.b', 'hist.c']));
      // a bucket without anything is a gap, not a zero
      expect(all.buckets[0]!.succeeded).toBeNull();
      expect(all.buckets[0]!.durationP95Ms).toBeNull();

      for (const queue of ['hq1', 'hq2']) {
        const v = await store.reads.history({ from, to, bucketMs: 60_000, queue });
        const mine = log.filter((a) => a.queue === queue);
        expect(total(v.buckets, 'started'), queue).toBe(mine.length);
        expect(total(v.buckets, 'succeeded'), queue).toBe(mine.filter((a) => a.outcome === 'succeeded').length);
        expect(total(v.buckets, 'enqueued'), queue).toBe(plan.filter((p) => p.queue === queue).length);
      }
      const c = await store.reads.history({ from, to, bucketMs: 60_000, command: 'hist.c' });
      expect(total(c.buckets, 'enqueued')).toBe(3);
      expect(total(c.buckets, 'succeeded')).toBe(1);
      expect(total(c.buckets, 'dead')).toBe(1);
      const qc = await store.reads.history({ from, to, bucketMs: 60_000, queue: 'hq1', command: 'hist.a' });
      expect(total(qc.buckets, 'succeeded')).toBe(2);
      expect(total(qc.buckets, 'failed')).toBe(0);

      // durations: every p95 lies in the histogram bucket of the slowest attempt of its minute (or below)
      const longest = Math.max(...ended.map((a) => a.endedAt!.getTime() - a.startedAt.getTime()));
      for (const b of all.buckets) {
        if (b.durationP95Ms === null) continue;
        expect(b.durationP95Ms).toBeLessThanOrEqual(HIST_BOUNDS_MS[histBucket(longest)] ?? Number.MAX_SAFE_INTEGER);
        expect(b.durationMaxMs).toBeGreaterThanOrEqual(b.durationP95Ms);
        expect(b.latencyP50Ms).not.toBeNull();
      }

      // the cumulative totals count the same
      const totals = await store.reads.historyTotals();
      const sum = (k: 'enqueued' | 'started' | 'succeeded' | 'failed' | 'dead') => totals.commands.reduce((s, r) => s + r[k], 0);
      expect(sum('enqueued')).toBe(plan.length);
      expect(sum('started')).toBe(log.length);
      expect(sum('dead')).toBe(2);
      const hq1a = totals.commands.find((r) => r.queue === 'hq1' && r.command === 'hist.a')!;
      expect(hq1a.succeeded).toBe(2);
      // the histograms per queue: every ended attempt of the queue once, every start once
      const ofQueue = (q: string) => log.filter((a) => a.queue === q);
      for (const q of totals.queues) {
        const attempts = ofQueue(q.queue);
        expect(q.started, q.queue).toBe(attempts.length);
        expect(q.started).toBe(totals.commands.filter((c) => c.queue === q.queue).reduce((s, c) => s + c.started, 0));
        expect(q.latencyBuckets.reduce((s, n) => s + n, 0)).toBe(attempts.length);
        expect(q.durationCount).toBe(attempts.filter((a) => a.endedAt).length);
        expect(q.durationBuckets.reduce((s, n) => s + n, 0)).toBe(q.durationCount);
      }
      expect(totals.queues.map((q) => q.queue).sort()).toEqual([...new Set(totals.commands.map((c) => c.queue))].sort());

      // the sparklines: succeeded per queue
      const spark = await store.reads.queueThroughput(from, to, 60_000);
      expect(spark.find((s) => s.queue === 'hq1')!.counts.reduce((s, n) => s + n, 0)).toBe(2);
    });

    it('the per-second grain counts dead tasks too', async () => {
      const { store } = h();
      const slot = await h().worker();
      await h().deadTask(slot, 'boom', { queue: 'hq3', command: 'hist.d' });
      await h().doneTask(slot, { queue: 'hq3', command: 'hist.d' });
      const now = Date.now();
      const v = await store.reads.history({ from: new Date(now - 60_000), to: new Date(now + 5_000), bucketMs: 5_000 });
      expect(total(v.buckets, 'dead')).toBe(1);
      expect(total(v.buckets, 'failed')).toBe(1);
      expect(total(v.buckets, 'succeeded')).toBe(1);
    });
  });
}
