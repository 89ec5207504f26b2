// Settlements that end an attempt in failure: retry later, dead (poison), timed out.
import { describe, expect, it } from 'vitest';
import { err, useStore, type StoreFactory } from './harness';

export function retryTests(factory: StoreFactory) {
  describe('retries', () => {
    const h = useStore(factory);

    it('a retry settlement puts the task back, not claimable before runAfter', async () => {
      const slot = await h().worker();
      const token = await h().add({ maxAttempts: 5 });
      const c1 = await h().claimOne(slot);
      // due 2 s after the store's own clock: the "not yet" below is a few round trips, far inside that
      const runAfter = new Date((await h().storeNow(slot)) + 2_000);
      expect(await h().settle(c1, { kind: 'retry', outcome: 'failed', error: err('first failure', 50000, 'stack 1'), runAfter })).toBe(
        true,
      );

      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'pending', attempts: 1, leaseUntil: null });
      expect(t.runAfter.getTime()).toBe(runAfter.getTime());
      expect(t.lastError).toEqual({ number: 50000, message: 'first failure', detail: 'stack 1' });
      expect(t.history).toHaveLength(1);
      expect(t.history[0]).toMatchObject({
        attempt: 1,
        outcome: 'failed',
        errorNumber: 50000,
        errorMessage: 'first failure',
        errorDetail: 'stack 1',
      });
      expect(t.history[0]!.endedAt).toBeInstanceOf(Date);

      await h().claimNone(slot);
      await h().untilStoreTime(slot, runAfter.getTime());
      const c2 = await h().claimOne(slot);
      expect(c2).toMatchObject({ token, attempt: 2 });
      expect(await h().succeed(c2, 'ok')).toBe(true);
      const done = await h().task(token);
      expect(done).toMatchObject({ status: 'succeeded', attempts: 2, result: 'ok' });
      expect(done.history.map((x) => [x.attempt, x.outcome]).sort()).toEqual([
        [1, 'failed'],
        [2, 'succeeded'],
      ]);
    });

    it('attempt numbers increase over several retries', async () => {
      const slot = await h().worker();
      const token = await h().add({ maxAttempts: 4 });
      for (let attempt = 1; attempt <= 3; attempt++) {
        const c = await h().claimOne(slot);
        expect(c.attempt).toBe(attempt);
        expect(c.maxAttempts).toBe(4);
        expect(await h().retryLater(c, 0, `failure ${attempt}`)).toBe(true);
        expect((await h().task(token)).attempts).toBe(attempt);
      }
      const last = await h().claimOne(slot);
      expect(last.attempt).toBe(4);
      expect(await h().kill(last, 'final')).toBe(true);
      const t = await h().task(token);
      expect(t.history.map((x) => x.attempt).sort()).toEqual([1, 2, 3, 4]);
      expect(t.lastError!.message).toBe('final');
    });

    it('a dead settlement makes the task dead with its last error', async () => {
      const slot = await h().worker();
      const other = await h().add({ priority: -1 });
      const token = await h().add({ maxAttempts: 5 });
      const c = await h().claimOne(slot);
      expect(c.token).toBe(token);
      expect(await h().settle(c, { kind: 'dead', outcome: 'failed', error: err('poison', 8134, 'Error: poison\n    at handler') })).toBe(
        true,
      );
      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'dead', attempts: 1, leaseUntil: null });
      expect(t.lastError).toEqual({ number: 8134, message: 'poison', detail: 'Error: poison\n    at handler' });
      expect(t.finishedAt).toBeInstanceOf(Date);
      expect(t.history[0]).toMatchObject({ outcome: 'failed', errorNumber: 8134, errorMessage: 'poison' });
      // a poison task blocks nothing: the next task is claimed, the dead one never again
      const next = await h().claimOne(slot);
      expect(next.token).toBe(other);
      expect(await h().succeed(next)).toBe(true);
      await h().claimNone(slot);
    });

    it('an error without number or detail is stored as nulls', async () => {
      const slot = await h().worker();
      const token = await h().add();
      const c = await h().claimOne(slot);
      expect(await h().settle(c, { kind: 'dead', outcome: 'failed', error: err('plain') })).toBe(true);
      expect((await h().task(token)).lastError).toEqual({ number: null, message: 'plain', detail: null });
    });

    it('records timed_out attempts', async () => {
      const slot = await h().worker();
      const token = await h().add({ maxAttempts: 2, timeoutMs: 50 });
      const c1 = await h().claimOne(slot);
      expect(c1.timeoutMs).toBe(50);
      expect(await h().settle(c1, { kind: 'retry', outcome: 'timed_out', error: err('timed out after 50 ms'), runAfter: new Date() })).toBe(
        true,
      );
      const c2 = await h().claimOne(slot);
      expect(await h().settle(c2, { kind: 'dead', outcome: 'timed_out', error: err('timed out after 50 ms') })).toBe(true);
      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'dead', attempts: 2, lastError: { message: 'timed out after 50 ms' } });
      expect(t.history.map((x) => x.outcome)).toEqual(['timed_out', 'timed_out']);
    });

    it('a success after a retry keeps the attempt count and the history', async () => {
      const slot = await h().worker();
      const token = await h().add();
      const c1 = await h().claimOne(slot);
      expect(await h().retryLater(c1, 0, 'transient')).toBe(true);
      const c2 = await h().claimOne(slot);
      expect(await h().succeed(c2, { fine: 1 })).toBe(true);
      const t = await h().task(token);
      expect(t.attempts).toBe(2);
      expect(t.result).toEqual({ fine: 1 });
      expect(t.history).toHaveLength(2);
    });
  });
}
