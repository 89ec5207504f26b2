// Claimed is not running. A task a pool claims ahead (ClaimOptions.ahead; a store whose capabilities.prefetch is 0
// never does) is `claimed`: a lease renewed on its claimer, what a running task holds for the claim rules, but no
// attempt and no ExecutionLog row; its attempt starts when a slot starts it (its start recorded with its end, or
// alone), measured from then. Given back, lapsed or cancelled, it counts nothing. And on every store: an attempt its
// claim started whose lease was too short to run (a claim held past its lease) is given back undone, or — lapsed —
// left to the rescue.
import { describe, expect, it } from 'vitest';
import type { AttemptResult, ClaimedTask, WorkerSlot } from '../../lib/engine/types';
import { LONG_LEASE, sleep, type StoreFactory, useStore } from './harness';

const back = (t: ClaimedTask, workerId = t.workerId): AttemptResult => ({
  taskId: t.id,
  workerId,
  attempt: t.attempt,
  settlement: { kind: 'given_back', reason: 'test' },
});

export function claimedTests(factory: StoreFactory): void {
  describe('claimed ahead', () => {
    const h = useStore(factory);
    const aheadOk = () => h().store.capabilities.prefetch > 0;

    /** Which of the claimer's tasks (claimed ahead, or started by `workerId`) a heartbeat renews. */
    async function renews(t: ClaimedTask, workerId = 'claimer'): Promise<number[]> {
      const running = [{ taskId: t.id, workerId, attempt: 1, claimer: 'claimer' }];
      return (await h().store.worker.heartbeat({ workerIds: [workerId], running, leaseMs: LONG_LEASE })).owned;
    }

    /** `n` tasks claimed ahead by `claimer` (no slot of its own): `claimed` in the store. */
    async function claimAhead(claimer: WorkerSlot, n: number, leaseMs = LONG_LEASE): Promise<ClaimedTask[]> {
      const got = await h().store.worker.claim([], { leaseMs, ahead: { count: n, claimer } });
      expect(got).toHaveLength(n);
      for (const t of got) expect(t).toMatchObject({ ahead: true, workerId: claimer.workerId, attempt: 1 });
      return got;
    }

    it('is claimed, not running: no attempt, no log row, not in ExecutionStatus, counted apart', async () => {
      if (!aheadOk()) return;
      const { store } = h();
      const claimer = await h().worker('claimer');
      const token = await h().add();
      const [t] = await claimAhead(claimer, 1);
      const d = await h().task(token);
      expect(d).toMatchObject({ status: 'claimed', attempts: 0, workerId: 'claimer' });
      expect(d.history).toEqual([]);
      expect(await store.reads.listRunning()).toEqual([]);
      expect((await store.reads.listWorkers()).find((w) => w.workerId === 'claimer')!.currentTask).toBeNull();
      expect(await h().counts()).toEqual([
        { queue: 'default', waiting: 0, pending: 0, claimed: 1, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
      ]);
      expect((await store.reads.listTasks({ status: 'claimed' })).items.map((x) => x.token)).toEqual([token]);
      // its lease is renewed on its claimer, as claimed
      expect(await renews(t!)).toEqual([t!.id]);
    });

    it("an attempt's start is its handler's start: claimed, started 200 ms later, it runs 200 ms less", async () => {
      if (!aheadOk()) return;
      const { store } = h();
      const claimer = await h().worker('claimer');
      const runner = await h().worker('runner');
      const token = await h().add();
      const [t] = await claimAhead(claimer, 1);
      await sleep(200);
      const at = new Date();
      await sleep(30);
      const ok = await store.worker.finish([
        {
          taskId: t!.id,
          workerId: 'runner',
          attempt: 1,
          settlement: { kind: 'succeeded', result: 7 },
          start: { at, claimer: 'claimer', session: runner.session, due: t!.runAfter },
        },
      ]);
      expect(ok).toEqual([true]);
      const d = await h().task(token);
      expect(d).toMatchObject({ status: 'succeeded', attempts: 1, workerId: 'runner', result: 7 });
      expect(d.startedAt!.getTime()).toBe(at.getTime());
      expect(d.history).toHaveLength(1);
      expect(d.history[0]).toMatchObject({ attempt: 1, workerId: 'runner', session: runner.session, outcome: 'succeeded' });
      expect(d.history[0]!.startedAt.getTime()).toBe(at.getTime());
      // its duration runs from its start, not from its claim (200 ms before)
      const ms = d.history[0]!.endedAt!.getTime() - d.history[0]!.startedAt.getTime();
      expect(ms).toBeLessThan(d.history[0]!.endedAt!.getTime() - t!.startedAt.getTime() - 150);
      // a start the pool's clock puts after the store's now is kept at the store's now
      const token2 = await h().add();
      const [t2] = await claimAhead(claimer, 1);
      const ok2 = await store.worker.finish([
        {
          taskId: t2!.id,
          workerId: 'runner',
          attempt: 1,
          settlement: { kind: 'succeeded', result: null },
          start: { at: new Date(Date.now() + 3_600_000), claimer: 'claimer', session: runner.session, due: t2!.runAfter },
        },
      ]);
      expect(ok2).toEqual([true]);
      const d2 = await h().task(token2);
      expect(d2.history[0]!.startedAt.getTime()).toBeLessThanOrEqual(d2.history[0]!.endedAt!.getTime());
    });

    it('a start recorded while it runs opens its attempt; its end then settles it as running', async () => {
      if (!aheadOk()) return;
      const { store } = h();
      const claimer = await h().worker('claimer');
      const runner = await h().worker('runner');
      const token = await h().add();
      const [t] = await claimAhead(claimer, 1);
      const start = { at: new Date(), claimer: 'claimer', session: runner.session, due: t!.runAfter };
      expect(
        await store.worker.finish([{ taskId: t!.id, workerId: 'runner', attempt: 1, settlement: { kind: 'started' }, start }]),
      ).toEqual([true]);
      expect(await h().task(token)).toMatchObject({ status: 'running', attempts: 1, workerId: 'runner' });
      const running = await store.reads.listRunning();
      expect(running.map((r) => [r.token, r.workerId, r.session])).toEqual([[token, 'runner', runner.session]]);
      // sent again (a flush that failed after it was written): refused, nothing changes
      expect(
        await store.worker.finish([{ taskId: t!.id, workerId: 'runner', attempt: 1, settlement: { kind: 'started' }, start }]),
      ).toEqual([false]);
      // the lease is renewed whichever state the beat finds it in
      expect(await renews(t!, 'runner')).toEqual([t!.id]);
      expect(await h().settle({ id: t!.id, workerId: 'runner', attempt: 1 }, { kind: 'succeeded', result: null })).toBe(true);
      const d = await h().task(token);
      expect(d.status).toBe('succeeded');
      expect(d.history.map((a) => a.outcome)).toEqual(['succeeded']);
    });

    it('a claimed task given back is pending again with no attempt and no retry counted, its token free', async () => {
      if (!aheadOk()) return;
      const { store } = h();
      await store.commands.setQueue('one', { concurrencyLimit: 1 }, 'test');
      const claimer = await h().worker('claimer');
      const other = await h().worker('other');
      const token = await h().add({ queue: 'one', maxAttempts: 1 });
      const [t] = await claimAhead(claimer, 1);
      // it holds the queue's only token: nothing else of the queue starts
      await h().add({ queue: 'one' });
      await h().claimNone(other);
      expect(await store.worker.finish([back(t!)])).toEqual([true]);
      const d = await h().task(token);
      expect(d).toMatchObject({ status: 'pending', attempts: 0, lastError: null });
      expect(d.history).toEqual([]);
      expect(await store.reads.listAttempts({})).toMatchObject({ items: [] });
      // given back once: again refused (it is not claimed any more)
      expect(await store.worker.finish([back(t!)])).toEqual([false]);
      // its token is free: the queue's oldest task starts, attempt 1 (no attempt spent; max attempts 1 still left)
      const again = await h().claimOne(other);
      expect(again).toMatchObject({ token, attempt: 1 });
    });

    it('holds what a running task holds: its dedup key, its key under the per-key limit', async () => {
      if (!aheadOk()) return;
      const { store } = h();
      await store.commands.setQueue('keys', { perKeyLimit: 1 }, 'test');
      const claimer = await h().worker('claimer');
      const other = await h().worker('other');
      const first = await h().add({ queue: 'keys', concurrencyKey: 'k', dedupKey: 'd1' });
      await h().add({ queue: 'keys', concurrencyKey: 'k' });
      await claimAhead(claimer, 1);
      expect(await h().status(first)).toBe('claimed');
      await h().claimNone(other);
      const dup = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', queue: 'keys', dedupKey: 'd1' }, {});
      expect(dup).toEqual({ token: first, created: false });
    });

    it('a lapsed claim is rescued back to pending, nothing counted or logged', async () => {
      if (!aheadOk()) return;
      const { store } = h();
      const claimer = await h().worker('claimer');
      const token = await h().add({ maxAttempts: 1 });
      const [t] = await claimAhead(claimer, 1, 50);
      await sleep(120);
      const r = await store.maintenance.rescueExpired();
      expect(r).toMatchObject({ retried: 0, dead: 0, released: 1 });
      const d = await h().task(token);
      expect(d).toMatchObject({ status: 'pending', attempts: 0 });
      expect(d.history).toEqual([]);
      // its claimer's late writes are refused: a renewal, a start, a give-back
      expect(await renews(t!)).toEqual([]);
      expect(await store.worker.finish([back(t!)])).toEqual([false]);
    });

    it('cancelled at once by an operator: its claimer can neither renew nor start it', async () => {
      if (!aheadOk()) return;
      const { store } = h();
      const claimer = await h().worker('claimer');
      const token = await h().add();
      const [t] = await claimAhead(claimer, 1);
      expect(await store.commands.cancel(token)).toBe('cancelled');
      expect(await h().status(token)).toBe('cancelled');
      expect(await renews(t!)).toEqual([]);
      const start = { at: new Date(), claimer: 'claimer', session: claimer.session, due: t!.runAfter };
      expect(
        await store.worker.finish([{ taskId: t!.id, workerId: 'claimer', attempt: 1, settlement: { kind: 'started' }, start }]),
      ).toEqual([false]);
      expect((await h().task(token)).history).toEqual([]);
    });
  });

  describe('a claim held past its lease', () => {
    const h = useStore(factory);

    it('an attempt its claim started, given back while its lease lives, is undone: pending, no attempt, no log row', async () => {
      const { store } = h();
      const slot = await h().worker();
      const token = await h().add({ maxAttempts: 1 });
      const t = await h().claimOne(slot);
      expect(await store.worker.finish([back(t)])).toEqual([true]);
      const d = await h().task(token);
      expect(d).toMatchObject({ status: 'pending', attempts: 0 });
      expect(d.history).toEqual([]);
      expect(await store.reads.listRunning()).toEqual([]);
      // its one attempt is still there to spend
      const again = await h().claimOne(slot);
      expect(again).toMatchObject({ token, attempt: 1 });
    });

    it('one whose lease lapsed before it returned is refused; the rescue owns it', async () => {
      const { store } = h();
      const slot = await h().worker();
      const token = await h().add();
      const t = await h().claimOne(slot, { leaseMs: 50 });
      await sleep(150);
      expect(await store.worker.finish([back(t)])).toEqual([false]);
      expect(await h().status(token)).toBe('running');
      await store.maintenance.rescueExpired();
      const d = await h().task(token);
      expect(d.status).toBe('pending');
      expect(d.history.map((a) => a.outcome)).toEqual(['abandoned']);
    });
  });
}
