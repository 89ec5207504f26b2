// Concurrency limits: token grant and release, live resize up and down, pause, reclaim of a token
// whose grantee's lease expired, and no head-of-line blocking behind a full or paused queue.
import { describe, expect, it } from 'vitest';
import { LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';

export function limitTests(factory: StoreFactory) {
  describe('concurrency limits', () => {
    const h = useStore(factory);

    it('grants at most `limit` tokens and releases them when attempts end', async () => {
      const { store } = h();
      await store.commands.setQueue('lim', { concurrencyLimit: 2 }, 'contract');
      for (let i = 0; i < 5; i++) await h().add({ queue: 'lim', payload: { i } });
      const slots = [await h().worker(), await h().worker(), await h().worker()];
      const got = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(got).toHaveLength(2);
      const grants = (await store.reads.listTokens('lim')).filter((t) => t.status === 'granted');
      expect(grants.map((t) => t.tokenNo).sort()).toEqual([1, 2]);
      expect(new Set(grants.map((t) => t.token))).toEqual(new Set(got.map((c) => c.token)));
      const log = await store.reads.getTask(got[0]!.token);
      expect(log!.history[0]!.tokenNo).not.toBeNull();
      expect(await store.worker.claim([slots[2]!], { leaseMs: LONG_LEASE })).toEqual([]);
      // success releases one; failure with retry releases another
      expect(await h().succeed(got[0]!)).toBe(true);
      expect(await h().retryLater(got[1]!, 60_000)).toBe(true);
      expect((await store.reads.listTokens('lim')).filter((t) => t.status === 'granted')).toHaveLength(0);
      const next = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(next).toHaveLength(2);
      const view = (await store.reads.listQueues()).find((q) => q.name === 'lim')!;
      expect(view).toMatchObject({ concurrencyLimit: 2, paused: false, running: 2, granted: 2 });
    });

    it('a singleton (limit 1) runs one at a time; cancel of the holder releases its token', async () => {
      const { store } = h();
      await store.commands.setQueue('one', { concurrencyLimit: 1 }, 'contract');
      await h().add({ queue: 'one' });
      await h().add({ queue: 'one' });
      const [a, b] = [await h().worker(), await h().worker()];
      const got = await store.worker.claim([a, b], { leaseMs: LONG_LEASE });
      expect(got).toHaveLength(1);
      expect(await store.commands.cancel(got[0]!.token)).toBe('cancel_requested');
      expect(await h().settle(got[0]!, { kind: 'cancelled', error: null })).toBe(true);
      expect(await store.worker.claim([b], { leaseMs: LONG_LEASE })).toHaveLength(1);
    });

    it('raising the limit takes effect on the next claim; lowering grants nothing until running < limit', async () => {
      const { store } = h();
      await store.commands.setQueue('q', { concurrencyLimit: 1 }, 'contract');
      for (let i = 0; i < 6; i++) await h().add({ queue: 'q' });
      const slots = await Promise.all([1, 2, 3, 4, 5, 6].map(() => h().worker()));
      const first = await store.worker.claim(slots.slice(0, 3), { leaseMs: LONG_LEASE });
      expect(first).toHaveLength(1);
      await store.commands.setQueue('q', { concurrencyLimit: 3 }, 'contract');
      const more = await store.worker.claim(slots.slice(1, 4), { leaseMs: LONG_LEASE });
      expect(more).toHaveLength(2);
      const running = [...first, ...more];
      // lower to 1 with 3 running: nothing is taken away, nothing new is granted
      await store.commands.setQueue('q', { concurrencyLimit: 1 }, 'contract');
      expect((await h().task(running[0]!.token)).status).toBe('running');
      expect(await store.worker.claim(slots.slice(4), { leaseMs: LONG_LEASE })).toEqual([]);
      await h().succeed(running[0]!);
      expect(await store.worker.claim(slots.slice(4), { leaseMs: LONG_LEASE })).toEqual([]);
      await h().succeed(running[1]!);
      expect(await store.worker.claim(slots.slice(4), { leaseMs: LONG_LEASE })).toEqual([]);
      await h().succeed(running[2]!);
      const after = await store.worker.claim(slots.slice(4), { leaseMs: LONG_LEASE });
      expect(after).toHaveLength(1);
      const tokens = await store.reads.listTokens('q');
      expect(tokens.filter((t) => t.status === 'granted').map((t) => t.tokenNo)).toEqual([1]);
      expect(tokens.every((t) => t.tokenNo <= 1)).toBe(true);
      // back to unlimited
      await store.commands.setQueue('q', { concurrencyLimit: null }, 'contract');
      expect(await store.worker.claim(slots.slice(0, 4), { leaseMs: LONG_LEASE })).toHaveLength(2);
    });

    it('a limit set while tasks of the queue run counts them, token or not: no new grant until running < limit', async () => {
      const { store } = h();
      for (let i = 0; i < 6; i++) await h().add({ queue: 'late' });
      const slots = await Promise.all([1, 2, 3, 4, 5].map(() => h().worker()));
      // claimed while the queue is unlimited: they hold no token
      const running = await store.worker.claim(slots.slice(0, 3), { leaseMs: LONG_LEASE });
      expect(running).toHaveLength(3);
      expect((await store.reads.listRunning()).map((r) => r.tokenNo)).toEqual([null, null, null]);
      await store.commands.setQueue('late', { concurrencyLimit: 1 }, 'contract');
      expect(await store.worker.claim(slots.slice(3), { leaseMs: LONG_LEASE })).toEqual([]);
      await h().succeed(running[0]!);
      await h().succeed(running[1]!);
      // one still runs: the limit of 1 is reached
      expect(await store.worker.claim(slots.slice(3), { leaseMs: LONG_LEASE })).toEqual([]);
      await store.commands.setQueue('late', { concurrencyLimit: 2 }, 'contract');
      const second = await store.worker.claim(slots.slice(3), { leaseMs: LONG_LEASE });
      expect(second).toHaveLength(1);
      expect(await store.worker.claim(slots.slice(4), { leaseMs: LONG_LEASE })).toEqual([]);
      await h().succeed(running[2]!);
      expect(await store.worker.claim(slots.slice(4), { leaseMs: LONG_LEASE })).toHaveLength(1);
      const grants = (await store.reads.listTokens('late')).filter((t) => t.status === 'granted');
      expect(grants.map((t) => t.tokenNo).sort()).toEqual([1, 2]);
    });

    it('a running task whose lease expired does not count against a limit set later', async () => {
      const { store } = h();
      await h().add({ queue: 'lapsed' });
      await h().add({ queue: 'lapsed' });
      const first = await h().claimOne(await h().worker(), { leaseMs: 100 });
      await store.commands.setQueue('lapsed', { concurrencyLimit: 1 }, 'contract');
      await sleep(250);
      const second = await h().claimOne(await h().worker());
      expect(second.id).not.toBe(first.id);
    });

    it('records every change with who made it, old and new values', async () => {
      const { store } = h();
      await store.commands.setQueue('hist', { concurrencyLimit: 4 }, 'alice');
      await store.commands.setQueue('hist', { concurrencyLimit: 2, paused: true }, 'cli');
      await store.commands.setQueue('hist', { concurrencyLimit: 2 }, 'cli'); // no change, no record
      const changes = await store.reads.queueChanges('hist', 10);
      expect(changes.map((c) => [c.changedBy, c.field, c.oldValue, c.newValue])).toEqual([
        ['cli', 'paused', 'false', 'true'],
        ['cli', 'concurrencyLimit', '4', '2'],
        ['alice', 'concurrencyLimit', 'unlimited', '4'],
      ]);
      expect(changes[0]!.at).toBeInstanceOf(Date);
    });

    it('pause stops claims for that queue only; resume lets them flow', async () => {
      const { store } = h();
      await store.commands.setQueue('p', { paused: true }, 'contract');
      await h().add({ queue: 'p', priority: 10 });
      const other = await h().add({ queue: 'free' });
      const w = await h().worker();
      const got = await h().claimOne(w);
      expect(got.token).toBe(other);
      await h().claimNone(await h().worker());
      await store.commands.setQueue('p', { paused: false }, 'contract');
      expect((await h().claimOne(await h().worker())).queue).toBe('p');
    });

    it('a full queue does not block the next eligible task of another queue', async () => {
      const { store } = h();
      await store.commands.setQueue('full', { concurrencyLimit: 1 }, 'contract');
      for (let i = 0; i < 20; i++) await h().add({ queue: 'full', priority: 5 });
      const low = await h().add({ queue: 'other', priority: 0 });
      const slots = await Promise.all([1, 2, 3].map(() => h().worker()));
      const got = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(got.map((c) => c.queue).sort()).toEqual(['full', 'other']);
      expect(got.find((c) => c.queue === 'other')!.token).toBe(low);
    });

    it("reclaims a token whose grantee's lease expired", async () => {
      const { store } = h();
      await store.commands.setQueue('r', { concurrencyLimit: 1 }, 'contract');
      await h().add({ queue: 'r' });
      await h().add({ queue: 'r' });
      const a = await h().worker();
      const first = await h().claimOne(a, { leaseMs: 100 });
      await sleep(200);
      // before any rescue ran, the dead grant is shown and its token can be granted again
      const tokens = await store.reads.listTokens('r');
      expect(tokens.find((t) => t.tokenNo === 1)!.holderDead).toBe(true);
      const b = await h().worker();
      const second = await h().claimOne(b);
      expect(second.id).not.toBe(first.id);
      // the old attempt is rescued later and cannot take the token back
      await store.maintenance.rescueExpired();
      const grants = (await store.reads.listTokens('r')).filter((t) => t.status === 'granted');
      expect(grants).toHaveLength(1);
      expect(grants[0]!.token).toBe(second.token);
      expect(await h().succeed(first)).toBe(false);
    });

    it('unlimited queues have no tokens', async () => {
      const { store } = h();
      await h().add({ queue: 'u' });
      await h().claimOne(await h().worker());
      expect(await store.reads.listTokens('u')).toEqual([]);
    });
  });
}
