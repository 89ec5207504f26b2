// Batches: ordered stages (a stage starts only when every earlier stage is terminal), the per-batch
// cap, fair claiming across batches, onFailure abort, release → completed, cancel.
import { describe, expect, it } from 'vitest';
import type { ClaimedTask } from '../../lib/engine/types';
import { LONG_LEASE, useStore, type StoreFactory } from './harness';

export function stageTests(factory: StoreFactory) {
  describe('batches and stages', () => {
    const h = useStore(factory);

    it('starts stage k only after every task of earlier stages is terminal', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({ caller: 'contract' });
      expect(b).toMatchObject({ status: 'open', maxParallel: null, onFailure: 'continue' });
      for (const stage of [0, 0, 1, 2]) await h().add({ batchId: b.id, stage, payload: { stage } });
      const slots = await Promise.all([1, 2, 3, 4].map(() => h().worker()));
      const s0 = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(s0.map((c) => (c.payload as { stage: number }).stage)).toEqual([0, 0]);
      expect((await store.reads.getBatch(b.id))!.activeStage).toBe(0);
      await h().succeed(s0[0]!);
      expect(await store.worker.claim(slots.slice(2), { leaseMs: LONG_LEASE })).toEqual([]);
      await h().kill(s0[1]!); // a dead task is terminal: with onFailure continue, the next stage runs
      const s1 = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(s1.map((c) => (c.payload as { stage: number }).stage)).toEqual([1]);
      await h().succeed(s1[0]!);
      const s2 = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(s2.map((c) => (c.payload as { stage: number }).stage)).toEqual([2]);
      const view = (await store.reads.getBatch(b.id))!;
      expect(view.stages.map((s) => [s.stage, s.total, s.succeeded, s.dead, s.running])).toEqual([
        [0, 2, 1, 1, 0],
        [1, 1, 1, 0, 0],
        [2, 1, 0, 0, 1],
      ]);
      expect(view.activeStage).toBe(2);
    });

    it('refuses a task for a stage earlier than one that has already started', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({});
      await h().add({ batchId: b.id, stage: 2 });
      await h().claimOne(await h().worker());
      await expect(h().add({ batchId: b.id, stage: 1 })).rejects.toThrow(/stage 2 .* has already started/);
      await h().add({ batchId: b.id, stage: 2 });
      await h().add({ batchId: b.id, stage: 3 });
    });

    it('holds the batch cap (maxParallel)', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({ maxParallel: 2 });
      for (let i = 0; i < 5; i++) await h().add({ batchId: b.id, stage: 0 });
      const slots = await Promise.all([1, 2, 3, 4].map(() => h().worker()));
      const got = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(got).toHaveLength(2);
      expect(await store.worker.claim(slots.slice(2), { leaseMs: LONG_LEASE })).toEqual([]);
      await h().succeed(got[0]!);
      expect(await store.worker.claim(slots.slice(2), { leaseMs: LONG_LEASE })).toHaveLength(1);
    });

    it('serves batches fairly: a small batch enqueued after a large one is not starved', async () => {
      const { store } = h();
      const big = await store.commands.createBatch({});
      const small = await store.commands.createBatch({});
      for (let i = 0; i < 60; i++) await h().add({ batchId: big.id, payload: { b: 'big' } });
      for (let i = 0; i < 5; i++) await h().add({ batchId: small.id, payload: { b: 'small' } });
      const slots = await Promise.all([1, 2].map(() => h().worker()));
      const order: string[] = [];
      for (let round = 0; round < 8; round++) {
        const got: ClaimedTask[] = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
        for (const c of got) {
          order.push((c.payload as { b: string }).b);
          await h().succeed(c);
        }
      }
      // all five small tasks start within the first 10 starts, not after the 60 big ones
      expect(order.slice(0, 10).filter((x) => x === 'small')).toHaveLength(5);
    });

    it('onFailure abort cancels the remaining stages when a task dies', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({ onFailure: 'abort' });
      await h().add({ batchId: b.id, stage: 0 });
      const later = [await h().add({ batchId: b.id, stage: 1 }), await h().add({ batchId: b.id, stage: 2 })];
      const c = await h().claimOne(await h().worker());
      await h().kill(c, 'stage 0 broke');
      for (const t of later) expect(await h().status(t)).toBe('cancelled');
      const view = (await store.reads.getBatch(b.id))!;
      expect(view.status).toBe('aborted');
      await h().claimNone(await h().worker());
    });

    it('refuses to retry a task of a stage after a failed one of an aborted batch; the failed stage may be retried', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({ onFailure: 'abort' });
      const first = await h().add({ batchId: b.id, stage: 0 });
      const later = await h().add({ batchId: b.id, stage: 1 });
      const w = await h().worker();
      await h().kill(await h().claimOne(w), 'stage 0 broke');
      expect(await h().status(later)).toBe('cancelled');
      expect((await store.reads.getBatch(b.id))!.status).toBe('aborted');
      // it would never run (its stage comes after a failed one): refused, and left as it was
      expect(await store.commands.retry(later)).toBe('batch_aborted');
      expect(await h().status(later)).toBe('cancelled');
      await h().claimNone(w);
      // the failed stage itself may run again; once it holds no dead task, the later stage may follow it
      expect((await store.commands.retryFailed({})).retried).toBe(1);
      expect(await store.commands.retry(later)).toBe('retried');
      const again = await h().claimOne(w);
      expect(again.token).toBe(first);
      await h().claimNone(await h().worker());
      expect(await h().succeed(again)).toBe(true);
      expect((await h().claimOne(w)).token).toBe(later);
    });

    it('a bulk retry skips dead tasks of a stage after a failed one of a batch that aborts', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({ onFailure: 'abort' });
      const x1 = await h().add({ batchId: b.id, stage: 1 });
      const x2 = await h().add({ batchId: b.id, stage: 1 });
      const z = await h().add({ batchId: b.id, stage: 2 });
      const w = await h().worker();
      // stage 1: one succeeds, the other is cancelled before it starts; stage 2 starts
      const c1 = await h().claimOne(w);
      expect(c1.token).toBe(x1);
      expect(await store.commands.cancel(x2)).toBe('cancelled');
      expect(await h().succeed(c1)).toBe(true);
      const cz = await h().claimOne(w);
      expect(cz.token).toBe(z);
      // the cancelled stage-1 task comes back and fails: the batch aborts; then stage 2's task fails too
      expect(await store.commands.retry(x2)).toBe('retried');
      const c2 = await h().claimOne(await h().worker());
      expect(c2.token).toBe(x2);
      expect(await h().kill(c2, 'stage 1 broke')).toBe(true);
      expect((await store.reads.getBatch(b.id))!.status).toBe('aborted');
      expect(await h().kill(cz, 'stage 2 broke')).toBe(true);
      // only the failed stage's task is retried: stage 2 comes after it
      expect((await store.commands.retryFailed({})).retried).toBe(1);
      expect(await h().status(x2)).toBe('pending');
      expect(await h().status(z)).toBe('dead');
    });

    it('a batch with work is not starved by 500 batches with nothing to claim (lanes are chosen among runnable batches)', async () => {
      const { store } = h();
      const later = new Date(Date.now() + 3_600_000);
      const waiting: number[] = [];
      for (let i = 0; i < 500; i++) waiting.push((await store.commands.createBatch({})).id);
      await store.commands.enqueueMany(
        waiting.map((batchId) => ({ kind: 'handler' as const, command: 'demo.echo', payload: null, batchId, runAt: later })),
      );
      // the newest batch is the last of 501 least recently served (never) batches
      const b = await store.commands.createBatch({});
      const token = await h().add({ batchId: b.id });
      const c = await h().claimOne(await h().worker());
      expect(c.token).toBe(token);
    });

    it('a released batch completes when its last task is terminal; it takes no new tasks', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({});
      await h().add({ batchId: b.id });
      expect(await store.commands.releaseBatch(b.id)).toBe('released');
      expect(await store.commands.releaseBatch(b.id)).toBe('conflict');
      await expect(h().add({ batchId: b.id })).rejects.toThrow(/released/);
      expect((await store.reads.getBatch(b.id))!.status).toBe('released');
      await h().succeed(await h().claimOne(await h().worker()));
      const done = (await store.reads.getBatch(b.id))!;
      expect(done.status).toBe('completed');
      expect(done.completedAt).toBeInstanceOf(Date);
      expect(await store.commands.releaseBatch(999_999)).toBe('not_found');
    });

    it('cancel cancels pending tasks and asks running ones to stop', async () => {
      const { store } = h();
      const b = await store.commands.createBatch({});
      const first = await h().add({ batchId: b.id });
      const second = await h().add({ batchId: b.id, stage: 1 });
      const c = await h().claimOne(await h().worker());
      expect(c.token).toBe(first);
      expect(await store.commands.cancelBatch(b.id)).toEqual({ result: 'cancelled', cancelled: 1 });
      expect(await h().status(second)).toBe('cancelled');
      expect((await h().task(first)).cancelRequested).toBe(true);
      expect((await store.commands.cancelBatch(b.id)).result).toBe('conflict');
    });

    it('lists batches newest first and filters tasks and attempts by batch', async () => {
      const { store } = h();
      const a = await store.commands.createBatch({});
      const b = await store.commands.createBatch({ maxParallel: 3 });
      await h().add({ batchId: b.id, stage: 1 });
      const page = await store.reads.listBatches({});
      expect(page.items.map((x) => x.id)).toEqual([b.id, a.id]);
      expect((await store.reads.listTasks({ batchId: b.id })).items).toHaveLength(1);
      expect((await store.reads.listTasks({ batchId: a.id })).items).toHaveLength(0);
      await h().claimOne(await h().worker());
      const attempts = await store.reads.listAttempts({ batchId: b.id });
      expect(attempts.items).toHaveLength(1);
      expect(attempts.items[0]!.stage).toBe(1);
    });
  });
}
