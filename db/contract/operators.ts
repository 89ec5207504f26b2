// Operator actions: cancel, manual retry (one and in bulk), delete (one and in bulk).
import { describe, expect, it } from 'vitest';
import { LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';

const UNKNOWN = '00000000-0000-4000-8000-000000000001';

export function operatorTests(factory: StoreFactory) {
  describe('cancel', () => {
    const h = useStore(factory);

    it('cancels a pending task at once; it is never claimed', async () => {
      const slot = await h().worker();
      const token = await h().add();
      const delayed = await h().add({ runAt: new Date(Date.now() + 150) });
      expect(await h().store.commands.cancel(token)).toBe('cancelled');
      expect(await h().store.commands.cancel(delayed)).toBe('cancelled');
      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'cancelled', attempts: 0, history: [] });
      expect(t.finishedAt).toBeInstanceOf(Date);
      await h().claimNone(slot);
      await sleep(200);
      await h().claimNone(slot);
      expect(await h().status(delayed)).toBe('cancelled');
    });

    it('asks a running task to stop; the worker ends it as cancelled', async () => {
      const { store } = h();
      const slot = await h().worker();
      const token = await h().add();
      const c = await h().claimOne(slot);
      expect(await store.commands.cancel(token)).toBe('cancel_requested');
      // asking twice is harmless
      expect(await store.commands.cancel(token)).toBe('cancel_requested');
      expect(await h().task(token)).toMatchObject({ status: 'running', cancelRequested: true });
      const running = await store.reads.listRunning();
      expect(running.find((r) => r.token === token)?.cancelRequested).toBe(true);

      const hb = await store.worker.heartbeat({
        workerIds: [slot.workerId],
        running: [{ taskId: c.id, workerId: slot.workerId, attempt: 1 }],
        leaseMs: LONG_LEASE,
      });
      expect(hb.owned).toEqual([c.id]);
      expect(hb.cancelRequested).toEqual([c.id]);

      expect(await h().settle(c, { kind: 'cancelled', error: null })).toBe(true);
      const t = await h().task(token);
      expect(t.status).toBe('cancelled');
      expect(t.finishedAt).toBeInstanceOf(Date);
      expect(t.history).toHaveLength(1);
      expect(t.history[0]).toMatchObject({ attempt: 1, outcome: 'cancelled' });
      expect(t.history[0]!.endedAt).toBeInstanceOf(Date);
      expect(await store.reads.listRunning()).toEqual([]);
      await h().claimNone(slot);
    });

    it('heartbeat reports no cancel for tasks nobody asked to cancel', async () => {
      const { store } = h();
      const slot = await h().worker();
      const other = await h().worker();
      await h().add();
      await h().add();
      const c = await h().claimOne(slot);
      const d = await h().claimOne(other);
      expect(await store.commands.cancel(d.token)).toBe('cancel_requested');
      const hb = await store.worker.heartbeat({
        workerIds: [slot.workerId, other.workerId],
        running: [
          { taskId: c.id, workerId: slot.workerId, attempt: 1 },
          { taskId: d.id, workerId: other.workerId, attempt: 1 },
        ],
        leaseMs: LONG_LEASE,
      });
      expect([...hb.owned].sort((x, y) => x - y)).toEqual([c.id, d.id].sort((x, y) => x - y));
      expect(hb.cancelRequested).toEqual([d.id]);
    });

    it('refuses to cancel a finished task and reports an unknown one', async () => {
      const slot = await h().worker();
      const done = await h().doneTask(slot);
      const dead = await h().deadTask(slot, 'x');
      const cancelled = await h().add();
      expect(await h().store.commands.cancel(cancelled)).toBe('cancelled');
      for (const t of [done, dead, cancelled]) expect(await h().store.commands.cancel(t)).toBe('conflict');
      expect(await h().status(done)).toBe('succeeded');
      expect(await h().status(dead)).toBe('dead');
      expect(await h().store.commands.cancel(UNKNOWN)).toBe('not_found');
    });
  });

  describe('manual retry', () => {
    const h = useStore(factory);

    it('puts a dead task with no attempts left back, granting one more attempt', async () => {
      const slot = await h().worker();
      const token = await h().deadTask(slot, 'gave up', { maxAttempts: 1 });
      expect(await h().task(token)).toMatchObject({ status: 'dead', attempts: 1, maxAttempts: 1 });
      expect(await h().store.commands.retry(token)).toBe('retried');
      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'pending', attempts: 1, maxAttempts: 2, finishedAt: null });
      const c = await h().claimOne(slot);
      expect(c).toMatchObject({ token, attempt: 2, maxAttempts: 2 });
      expect(await h().succeed(c)).toBe(true);
      expect(await h().task(token)).toMatchObject({ status: 'succeeded', attempts: 2 });
    });

    it('a dead task with attempts left keeps its max attempts', async () => {
      const slot = await h().worker();
      const token = await h().deadTask(slot, 'non-retryable', { maxAttempts: 5 });
      expect(await h().store.commands.retry(token)).toBe('retried');
      expect(await h().task(token)).toMatchObject({ status: 'pending', attempts: 1, maxAttempts: 5 });
      expect((await h().claimOne(slot)).attempt).toBe(2);
    });

    it('puts a cancelled task back', async () => {
      const slot = await h().worker();
      const token = await h().add();
      expect(await h().store.commands.cancel(token)).toBe('cancelled');
      expect(await h().store.commands.retry(token)).toBe('retried');
      expect(await h().task(token)).toMatchObject({ status: 'pending', finishedAt: null });
      const c = await h().claimOne(slot);
      expect(c).toMatchObject({ token, attempt: 1 });
    });

    it('refuses pending, running and succeeded tasks; reports an unknown one', async () => {
      const slot = await h().worker();
      const done = await h().doneTask(slot);
      const running = await h().add();
      await h().claimOne(slot);
      const pending = await h().add();
      for (const t of [pending, running, done]) expect(await h().store.commands.retry(t)).toBe('conflict');
      expect(await h().status(pending)).toBe('pending');
      expect(await h().status(running)).toBe('running');
      expect(await h().status(done)).toBe('succeeded');
      expect(await h().store.commands.retry(UNKNOWN)).toBe('not_found');
    });

    it('retryFailed retries the dead tasks matching a queue, a message or a text', async () => {
      const { store } = h();
      const slot = await h().worker();
      const a1 = await h().deadTask(slot, 'disk full', { queue: 'q1', command: 'demo.fail' });
      const a2 = await h().deadTask(slot, 'disk full', { queue: 'q1', command: 'demo.fail' });
      const b1 = await h().deadTask(slot, 'timeout talking to db', { queue: 'q1', command: 'demo.fail' });
      const a3 = await h().deadTask(slot, 'disk full', { queue: 'q2', command: 'demo.fail' });
      const c1 = await h().deadTask(slot, 'bad input', { queue: 'q2', command: 'demo.special' });
      const cancelled = await h().add({ queue: 'q1' });
      expect(await store.commands.cancel(cancelled)).toBe('cancelled');
      const done = await h().doneTask(slot, { queue: 'q1' });

      expect((await store.commands.retryFailed({ queue: 'q1', message: 'disk full' })).retried).toBe(2);
      expect(await h().status(a1)).toBe('pending');
      expect(await h().status(a2)).toBe('pending');
      expect(await h().status(b1)).toBe('dead');
      expect(await h().status(a3)).toBe('dead');

      expect((await store.commands.retryFailed({ message: 'disk full' })).retried).toBe(1);
      expect(await h().status(a3)).toBe('pending');

      expect((await store.commands.retryFailed({ q: 'talking' })).retried).toBe(1);
      expect(await h().status(b1)).toBe('pending');
      expect((await store.commands.retryFailed({ q: 'special' })).retried).toBe(1);
      expect(await h().status(c1)).toBe('pending');

      expect((await store.commands.retryFailed({})).retried).toBe(0);
      expect(await h().status(cancelled)).toBe('cancelled');
      expect(await h().status(done)).toBe('succeeded');
    });

    it('retryFailed with no filter retries every dead task', async () => {
      const slot = await h().worker();
      const tokens = [await h().deadTask(slot, 'one'), await h().deadTask(slot, 'two', { queue: 'other' })];
      expect((await h().store.commands.retryFailed({})).retried).toBe(2);
      for (const t of tokens) expect(await h().status(t)).toBe('pending');
    });
  });

  describe('delete', () => {
    const h = useStore(factory);

    it('deletes only terminal tasks, with their attempts', async () => {
      const { store } = h();
      const slot = await h().worker();
      const done = await h().doneTask(slot, { command: 'demo.deletable' });
      const dead = await h().deadTask(slot, 'x');
      const cancelled = await h().add();
      expect(await store.commands.cancel(cancelled)).toBe('cancelled');
      const running = await h().add();
      await h().claimOne(slot);
      const pending = await h().add();

      expect(await store.commands.deleteTask(pending)).toBe('conflict');
      expect(await store.commands.deleteTask(running)).toBe('conflict');
      for (const t of [done, dead, cancelled]) {
        expect(await store.commands.deleteTask(t)).toBe('deleted');
        expect(await store.reads.getTask(t)).toBeNull();
        expect(await store.commands.deleteTask(t)).toBe('not_found');
      }
      expect(await store.commands.deleteTask(UNKNOWN)).toBe('not_found');
      expect(await h().status(pending)).toBe('pending');
      expect(await h().status(running)).toBe('running');
      const attempts = await store.reads.listAttempts({ limit: 100 });
      expect(attempts.items.map((a) => a.token)).toEqual([running]);
    });

    it('deleteFailed deletes the dead tasks matching a filter', async () => {
      const { store } = h();
      const slot = await h().worker();
      const a1 = await h().deadTask(slot, 'disk full', { queue: 'q1' });
      const a2 = await h().deadTask(slot, 'disk full', { queue: 'q2' });
      const b1 = await h().deadTask(slot, 'other failure', { queue: 'q1' });
      const done = await h().doneTask(slot, { queue: 'q1' });

      expect(await store.commands.deleteFailed({ queue: 'q1', message: 'disk full' })).toBe(1);
      expect(await store.reads.getTask(a1)).toBeNull();
      expect(await h().status(a2)).toBe('dead');
      expect(await store.commands.deleteFailed({ message: 'disk full' })).toBe(1);
      expect(await store.reads.getTask(a2)).toBeNull();
      expect(await store.commands.deleteFailed({ queue: 'q1' })).toBe(1);
      expect(await store.reads.getTask(b1)).toBeNull();
      expect(await store.commands.deleteFailed({})).toBe(0);
      expect(await h().status(done)).toBe('succeeded');
      const attempts = await store.reads.listAttempts({ limit: 100 });
      expect(attempts.items.map((a) => a.token)).toEqual([done]);
    });
  });
}
