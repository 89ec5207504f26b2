// Throttle: concurrency keys (a queue's per-key limit, keys derived by keyFrom, binary-compared), fair
// turns across keys, rate limits over a window of time (queue-wide and per key), and what the read model and
// "why isn't it running?" show of them; setQueue records every change.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import { queuePatch } from '../../lib/engine/validation';
import { whyOfTask } from '../../lib/engine/why-read';
import type { ClaimedTask } from '../../lib/engine/types';
import { LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';

export function throttleTests(factory: StoreFactory) {
  describe('throttle: concurrency keys', () => {
    const h = useStore(factory);

    it('a per-key limit holds across claims: one key at its limit never crowds out another', async () => {
      const { store } = h();
      await store.commands.setQueue('fk', { perKeyLimit: 1 }, 'contract');
      for (let i = 0; i < 3; i++) await h().add({ queue: 'fk', concurrencyKey: 'acme', payload: { i } });
      const beta = await h().add({ queue: 'fk', concurrencyKey: 'beta' });
      const [w1, w2, w3] = [await h().worker(), await h().worker(), await h().worker()];
      const first = await h().claimOne(w1);
      expect(first.concurrencyKey).toBe('acme');
      const second = await store.worker.claim([w2, w3], { leaseMs: LONG_LEASE });
      expect(second.map((c) => c.token)).toEqual([beta]);
      expect(second[0]!.concurrencyKey).toBe('beta');
      await h().claimNone(w3);
      expect((await h().task(beta)).concurrencyKey).toBe('beta');
      const running = await store.reads.listTasks({ status: 'running', concurrencyKey: 'acme' });
      expect(running.items.map((t) => t.token)).toEqual([first.token]);
    });

    it('full keys never crowd out one that can run, however many they are (filtered before any LIMIT)', async () => {
      const { store } = h();
      await store.commands.setQueue('fm', { perKeyLimit: 1 }, 'contract');
      const many = Array.from({ length: 150 }, () => ({ kind: 'handler' as const, command: 'demo.echo', payload: null, queue: 'fm' }));
      await store.commands.enqueueMany(many.flatMap((t, i) => [t, t].map((x) => ({ ...x, concurrencyKey: `k${i}` }))));
      const w = await h().worker();
      const first = await store.worker.claim(Array(150).fill(w), { leaseMs: LONG_LEASE });
      expect(new Set(first.map((c) => c.concurrencyKey)).size).toBe(150);
      // a key served after all of them: the 150 full keys come first in the turns, and must not hide it
      const late = [await h().add({ queue: 'fm', concurrencyKey: 'late' }), await h().add({ queue: 'fm', concurrencyKey: 'late' })];
      const served = await h().claimOne(w);
      expect(served.token).toBe(late[0]);
      expect(await h().succeed(served)).toBe(true);
      expect((await h().claimOne(w)).token).toBe(late[1]);
      await h().claimNone(w);
    });

    it('a key slot is released by success, failure, cancel and a lapsed lease (then rescued)', async () => {
      const { store } = h();
      await store.commands.setQueue('fr', { perKeyLimit: 1 }, 'contract');
      for (let i = 0; i < 6; i++) await h().add({ queue: 'fr', concurrencyKey: 'k', payload: { i } });
      const w = await h().worker();
      const a = await h().claimOne(w);
      await h().claimNone(w);
      expect(await h().succeed(a)).toBe(true);
      const b = await h().claimOne(w);
      await h().claimNone(w);
      expect(await h().retryLater(b, 60_000)).toBe(true);
      const c = await h().claimOne(w);
      expect(await h().kill(c)).toBe(true);
      const d = await h().claimOne(w);
      expect(await store.commands.cancel(d.token)).toBe('cancel_requested');
      await h().claimNone(w);
      expect(await h().settle(d, { kind: 'cancelled', error: null })).toBe(true);
      // a lease short enough to wait out, long enough that a busy machine does not see it lapse before the next claim
      const e = await h().claimOne(w, { leaseMs: 1_000 });
      await h().claimNone(w);
      await sleep(1_200);
      // the lapsed lease holds no key slot, even before the rescue
      const f = await h().claimOne(w);
      expect(f.token).not.toBe(e.token);
      expect(await store.maintenance.rescueExpired()).toMatchObject({ retried: 1 });
      expect(await h().status(e.token)).toBe('pending');
      await h().claimNone(w);
    });

    it('a lowered per-key limit stops nothing already running; no new start until running < limit', async () => {
      const { store } = h();
      await store.commands.setQueue('fl', { perKeyLimit: 3 }, 'contract');
      for (let i = 0; i < 5; i++) await h().add({ queue: 'fl', concurrencyKey: 'k' });
      const slots = await Promise.all([1, 2, 3, 4].map(() => h().worker()));
      const got = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(got).toHaveLength(3);
      await store.commands.setQueue('fl', { perKeyLimit: 1 }, 'contract');
      for (const c of got) expect(await h().status(c.token)).toBe('running');
      await h().claimNone(slots[3]!);
      await h().succeed(got[0]!);
      await h().claimNone(slots[3]!);
      await h().succeed(got[1]!);
      await h().claimNone(slots[3]!);
      await h().succeed(got[2]!);
      expect(await store.worker.claim(slots, { leaseMs: LONG_LEASE })).toHaveLength(1);
    });

    it('keyFrom derives the key from the payload; an explicit key wins; no key when the path finds nothing', async () => {
      const { store } = h();
      await store.commands.setQueue('kf', { keyFrom: '$.order.customerId' }, 'contract');
      const key = async (token: string) => (await h().task(token)).concurrencyKey;
      expect(await key(await h().add({ queue: 'kf', payload: { order: { customerId: 'c-1' } } }))).toBe('c-1');
      expect(await key(await h().add({ queue: 'kf', payload: { order: { customerId: 42 } } }))).toBe('42');
      expect(await key(await h().add({ queue: 'kf', payload: { order: { customerId: 'c-1' } }, concurrencyKey: 'given' }))).toBe('given');
      expect(await key(await h().add({ queue: 'kf', payload: { order: {} } }))).toBeNull();
      expect(await key(await h().add({ queue: 'kf', payload: null }))).toBeNull();
      expect(await key(await h().add({ queue: 'other', payload: { order: { customerId: 'c-1' } } }))).toBeNull();
      const many = await store.commands.enqueueMany([
        { kind: 'handler', command: 'demo.echo', queue: 'kf', payload: { order: { customerId: 'm-1' } } },
        { kind: 'handler', command: 'demo.echo', queue: 'kf', payload: { order: { customerId: 'm-2' } } },
      ]);
      expect(await Promise.all(many.map((r) => key(r.token)))).toEqual(['m-1', 'm-2']);
      // a derived key over 200 characters is refused, never cut
      const long = h().add({ queue: 'kf', payload: { order: { customerId: 'x'.repeat(201) } } });
      await expect(long).rejects.toBeInstanceOf(ValidationError);
      await expect(long).rejects.toMatchObject({ field: 'payload' });
    });

    it("keys are derived in a caller's transaction and for a schedule's fires too", async () => {
      const { store } = h();
      await store.commands.setQueue('kt', { keyFrom: '$.tenant' }, 'contract');
      const [one, two] = await store.commands.transaction(async (tx) => [
        await tx.enqueue({ kind: 'handler', command: 'demo.echo', payload: { tenant: 't1' }, queue: 'kt' }),
        ...(await tx.enqueueMany([{ kind: 'handler', command: 'demo.echo', payload: null, queue: 'kt', concurrencyKey: 'given' }])),
      ]);
      expect((await h().task(one!.token)).concurrencyKey).toBe('t1');
      expect((await h().task(two!.token)).concurrencyKey).toBe('given');
      const schedule = {
        name: 'keyed',
        cron: '0 * * * *',
        timezone: 'UTC',
        kind: 'handler' as const,
        command: 'demo.echo',
        queue: 'kt',
        priority: 0,
        maxAttempts: null,
        timeoutMs: null,
        misfire: 'skip' as const,
        overlap: 'allow' as const,
        enabled: true,
        source: 'dashboard' as const,
        declared: true,
      };
      await store.commands.createSchedule({ ...schedule, payload: { tenant: 't9' } }, new Date(Date.now() + 3_600_000), 'contract');
      const fired = await store.commands.runSchedule('keyed', 'contract');
      expect((await h().task(fired!.token)).concurrencyKey).toBe('t9');
      // a fire whose key would be too long fires with no key, never blocking the other schedules
      const long = { ...schedule, name: 'long', payload: { tenant: 'x'.repeat(201) } };
      await store.commands.createSchedule(long, new Date(Date.now() + 3_600_000), 'contract');
      const plain = await store.commands.runSchedule('long', 'contract');
      expect((await h().task(plain!.token)).concurrencyKey).toBeNull();
    });

    it('keys are compared as written: case and accents make different keys', async () => {
      const { store } = h();
      await store.commands.setQueue('fb', { perKeyLimit: 1 }, 'contract');
      for (const k of ['acme', 'Acme', 'ACME', 'acmé']) await h().add({ queue: 'fb', concurrencyKey: k });
      const slots = await Promise.all([1, 2, 3, 4, 5].map(() => h().worker()));
      const got = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(got.map((c) => c.concurrencyKey).sort()).toEqual(['ACME', 'Acme', 'acme', 'acmé'].sort());
      expect((await store.reads.listTasks({ concurrencyKey: 'Acme' })).items).toHaveLength(1);
    });

    it('queueKeys: most running first, then most pending', async () => {
      const { store } = h();
      await store.commands.setQueue('qk', { perKeyLimit: 2 }, 'contract');
      for (let i = 0; i < 4; i++) await h().add({ queue: 'qk', concurrencyKey: 'big' });
      const slots = await Promise.all([1, 2, 3].map(() => h().worker()));
      expect(await store.worker.claim(slots, { leaseMs: LONG_LEASE })).toHaveLength(2);
      await h().add({ queue: 'qk', concurrencyKey: 'one' });
      for (let i = 0; i < 3; i++) await h().add({ queue: 'qk', concurrencyKey: 'many' });
      await h().add({ queue: 'qk' });
      expect(await store.reads.queueKeys('qk', 10)).toEqual([
        { key: 'big', running: 2, pending: 2 },
        { key: 'many', running: 0, pending: 3 },
        { key: 'one', running: 0, pending: 1 },
      ]);
      expect(await store.reads.queueKeys('qk', 1)).toEqual([{ key: 'big', running: 2, pending: 2 }]);
      expect(await store.reads.queueKeys('none', 10)).toEqual([]);
    });
  });

  describe('throttle: fair turns across keys', () => {
    const h = useStore(factory);

    /** enqueue A × `many`, then B…K × `few` each, in that order; returns the key of each token */
    async function fill(queue: string, many: number, few: number) {
      const keys = 'ABCDEFGHIJK'.split('');
      for (let i = 0; i < many; i++) await h().add({ queue, concurrencyKey: 'A', payload: { i } });
      for (const k of keys.slice(1)) for (let i = 0; i < few; i++) await h().add({ queue, concurrencyKey: k, payload: { i } });
      return keys;
    }

    /** the A tasks started before the last task of B…K started */
    const aBeforeOthersDone = (order: string[], others: number) => {
      let seen = 0;
      let a = 0;
      for (const k of order) {
        if (k === 'A') a++;
        else if (++seen === others) return a;
      }
      return Number.POSITIVE_INFINITY;
    };

    it('single-slot claims: keys take turns, every task of B…K starts before the 4th task of A', async () => {
      const { store } = h();
      await store.commands.setQueue('ft', { perKeyLimit: 1 }, 'contract');
      await fill('ft', 30, 2);
      const w = await h().worker();
      const order: string[] = [];
      for (let i = 0; i < 25; i++) {
        const c = await h().claimOne(w);
        order.push(c.concurrencyKey!);
        await h().succeed(c);
      }
      // turns: A, then B…K (never served), then A again, B…K again
      expect(aBeforeOthersDone(order, 20)).toBeLessThanOrEqual(3);
    });

    it('four workers claiming together, no per-key limit: still every task of B…K before the 4th of A', async () => {
      const { store } = h();
      await fill('fu', 30, 2);
      const slots = await Promise.all([1, 2, 3, 4].map(() => h().worker()));
      const order: string[] = [];
      for (let i = 0; i < 8; i++) {
        const got: ClaimedTask[] = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
        order.push(...got.map((c) => c.concurrencyKey!));
        for (const c of got) await h().succeed(c);
      }
      expect(aBeforeOthersDone(order, 20)).toBeLessThanOrEqual(3);
    });

    it('priority still wins across keys: a key served last with a higher-priority task goes first', async () => {
      const { store } = h();
      const w = await h().worker();
      await h().add({ queue: 'fp', concurrencyKey: 'A' });
      const first = await h().claimOne(w);
      await h().succeed(first);
      await h().add({ queue: 'fp', concurrencyKey: 'B' });
      const urgent = await h().add({ queue: 'fp', concurrencyKey: 'A', priority: 5 });
      expect((await h().claimOne(w)).token).toBe(urgent);
      // and the unkeyed tasks are one lane among the keys
      const plain = await h().add({ queue: 'fp', priority: 9 });
      expect((await store.worker.claim([w], { leaseMs: LONG_LEASE }))[0]!.token).toBe(plain);
    });
  });

  describe('throttle: rate limits', () => {
    const h = useStore(factory);

    it('at most `limit` starts in a window; the next waits until the oldest leaves it', async () => {
      const { store } = h();
      await store.commands.setQueue('rl', { rateLimit: { limit: 3, periodSeconds: 2, perKey: false } }, 'contract');
      for (let i = 0; i < 6; i++) await h().add({ queue: 'rl', payload: { i } });
      const slots = await Promise.all([1, 2, 3, 4, 5, 6].map(() => h().worker()));
      const first = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(first).toHaveLength(3);
      for (const c of first) await h().succeed(c);
      expect(await store.worker.claim(slots, { leaseMs: LONG_LEASE })).toEqual([]);
      const win = await store.reads.rateWindow('rl', null);
      expect(win).toMatchObject({ limit: 3, periodSeconds: 2, perKey: false, started: 3 });
      // a pool waiting on the window is told when its oldest start leaves it
      const opens = await store.worker.nextRateOpening(['rl']);
      expect(opens).toBeGreaterThan(0);
      expect(opens).toBeLessThanOrEqual(2000);
      const startedAt = first[0]!.startedAt.getTime();
      expect(win!.nextAt!.getTime()).toBe(startedAt + 2000);
      const q = (await store.reads.listQueues()).find((x) => x.name === 'rl')!;
      expect(q.rateLimit).toEqual({ limit: 3, periodSeconds: 2, perKey: false });
      expect(q.rate).toMatchObject({ started: 3, limit: 3 });
      // no attempt was spent on the tasks that waited
      const waiting = (await store.reads.listTasks({ status: 'pending', queue: 'rl' })).items;
      expect(waiting.map((t) => t.attempts)).toEqual([0, 0, 0]);
      await h().untilStoreTime(slots[0]!, win!.nextAt!.getTime() + 10);
      const next = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(next).toHaveLength(3);
      for (const c of next) expect(c.startedAt.getTime()).toBeGreaterThanOrEqual(startedAt + 2000);
    });

    it('a store that claims ahead never claims a rate-limited task ahead (its slot would predate its start)', async () => {
      const { store } = h();
      if (store.capabilities.prefetch === 0) return; // claims one task per worker: nothing is claimed ahead
      await store.commands.setQueue('ra', { rateLimit: { limit: 10, periodSeconds: 60, perKey: false } }, 'contract');
      for (let i = 0; i < 4; i++) await h().add({ queue: 'ra', payload: { i } });
      for (let i = 0; i < 4; i++) await h().add({ queue: 'plain-ahead', payload: { i } });
      const w = await h().worker();
      // the worker's own slot, and three tasks claimed ahead
      const got = await store.worker.claim([w], { leaseMs: LONG_LEASE, ahead: { count: 3, claimer: w } });
      expect(got.filter((c) => c.queue === 'ra')).toHaveLength(1);
      expect(got[0]!.queue).toBe('ra');
      expect(got.slice(1).map((c) => [c.queue, c.ahead])).toEqual([
        ['plain-ahead', true],
        ['plain-ahead', true],
        ['plain-ahead', true],
      ]);
      expect(await store.reads.rateWindow('ra', null)).toMatchObject({ started: 1 });
    });

    it('a per-key rate keeps a window per key; the tasks with no key share one', async () => {
      const { store } = h();
      await store.commands.setQueue('rk', { rateLimit: { limit: 1, periodSeconds: 60, perKey: true } }, 'contract');
      for (const k of ['a', 'a', 'b', 'b', null, null]) await h().add({ queue: 'rk', concurrencyKey: k });
      const slots = await Promise.all([1, 2, 3, 4, 5, 6].map(() => h().worker()));
      const got = await store.worker.claim(slots, { leaseMs: LONG_LEASE });
      expect(got.map((c) => c.concurrencyKey ?? '-').sort()).toEqual(['-', 'a', 'b']);
      expect(await store.worker.claim(slots, { leaseMs: LONG_LEASE })).toEqual([]);
      expect(await store.reads.rateWindow('rk', 'a')).toMatchObject({ started: 1, perKey: true });
      expect(await store.reads.rateWindow('rk', null)).toMatchObject({ started: 1 });
      expect(await store.reads.rateWindow('rk', 'zzz')).toMatchObject({ started: 0, nextAt: null });
      expect(await store.reads.rateWindow('plain', null)).toBeNull();
    });

    it('a rate set on a busy queue counts the starts already in its window', async () => {
      const { store } = h();
      for (let i = 0; i < 4; i++) await h().add({ queue: 'rs' });
      const w = await h().worker();
      await h().succeed(await h().claimOne(w));
      await h().succeed(await h().claimOne(w));
      await store.commands.setQueue('rs', { rateLimit: { limit: 3, periodSeconds: 60, perKey: false } }, 'contract');
      expect(await store.reads.rateWindow('rs', null)).toMatchObject({ started: 2 });
      await h().claimOne(w);
      await h().claimNone(w);
      // lowered below what started: nothing starts until enough leave the window
      await store.commands.setQueue('rs', { rateLimit: { limit: 1, periodSeconds: 60, perKey: false } }, 'contract');
      expect(await store.reads.rateWindow('rs', null)).toMatchObject({ started: 3, limit: 1 });
      await store.commands.setQueue('rs', { rateLimit: null }, 'contract');
      expect((await store.worker.claim([w], { leaseMs: LONG_LEASE })).length).toBe(1);
    });
  });

  describe('throttle: visible and editable', () => {
    const h = useStore(factory);

    it('"why" names the key holders and the rate numbers', async () => {
      const { store } = h();
      await store.commands.setQueue('wk', { perKeyLimit: 1 }, 'contract');
      const w = await h().worker('flow-holder');
      // an idle worker serves the queue: the task waits for its key, not for a worker
      await h().worker('flow-idle');
      await store.worker.registerHandlers(['demo.echo']);
      const held = await h().add({ queue: 'wk', concurrencyKey: 'acme' });
      const waits = await h().add({ queue: 'wk', concurrencyKey: 'acme' });
      await h().claimOne(w);
      const why = await whyOfTask(store.reads, await h().task(waits), new Date());
      expect(why.reason).toBe('key_full');
      expect(why.text).toContain('Key acme: 1 of 1 running');
      expect(why.text).toContain('flow-holder');
      expect(JSON.stringify(why.detail)).toContain((await h().task(held)).token);

      await store.commands.setQueue('wr', { rateLimit: { limit: 2, periodSeconds: 60, perKey: false } }, 'contract');
      for (let i = 0; i < 3; i++) await h().add({ queue: 'wr' });
      await h().claimOne(w, { queues: ['wr'] });
      await h().claimOne(w, { queues: ['wr'] });
      const pending = (await store.reads.listTasks({ status: 'pending', queue: 'wr' })).items[0]!;
      const r = await whyOfTask(store.reads, pending, new Date());
      expect(r.reason).toBe('rate_limited');
      expect(r.text).toMatch(/^Rate limit: 2 of 2 started in the last 60 s; next start in (1m 0s|\d+s)$/);
    });

    it('setQueue records every throttle change; an unchanged value records nothing', async () => {
      const { store } = h();
      const s = await store.commands.setQueue(
        'ed',
        { perKeyLimit: 2, keyFrom: '$.customerId', rateLimit: { limit: 60, periodSeconds: 60, perKey: false } },
        'alice',
      );
      expect(s).toMatchObject({ perKeyLimit: 2, keyFrom: '$.customerId', rateLimit: { limit: 60, periodSeconds: 60, perKey: false } });
      await store.commands.setQueue('ed', { perKeyLimit: 2, rateLimit: { limit: 20, periodSeconds: 2, perKey: true } }, 'bob');
      await store.commands.setQueue('ed', { perKeyLimit: null, keyFrom: null, rateLimit: null }, 'carol');
      const changes = (await store.reads.queueChanges('ed', 50)).reverse();
      expect(changes.map((c) => [c.changedBy, c.field, c.oldValue, c.newValue])).toEqual([
        ['alice', 'perKeyLimit', 'unlimited', '2'],
        ['alice', 'keyFrom', 'none', '$.customerId'],
        ['alice', 'rateLimit', 'none', '60/1m'],
        ['bob', 'rateLimit', '60/1m', '20/2s per key'],
        ['carol', 'perKeyLimit', '2', 'unlimited'],
        ['carol', 'keyFrom', '$.customerId', 'none'],
        ['carol', 'rateLimit', '20/2s per key', 'none'],
      ]);
      const q = (await store.reads.listQueues()).find((x) => x.name === 'ed')!;
      expect(q).toMatchObject({ perKeyLimit: null, keyFrom: null, rateLimit: null, rate: null });
    });

    it('bad patches are refused before they reach a store', () => {
      for (const bad of [
        { perKeyLimit: 0 },
        { perKeyLimit: 10_001 },
        { keyFrom: 'customerId' },
        { keyFrom: '$.' },
        { rateLimit: { limit: 0, periodSeconds: 60 } },
        { rateLimit: { limit: 1, periodSeconds: 86_401 } },
        { rateLimit: { limit: 1 } },
      ])
        expect(queuePatch.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
      expect(queuePatch.parse({ rateLimit: { limit: 5, periodSeconds: 1 } })).toEqual({
        rateLimit: { limit: 5, periodSeconds: 1, perKey: false },
      });
    });
  });
}
