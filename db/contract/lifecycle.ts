// Lifecycle: enqueue → claim → finish, lookups by token, bulk enqueue, payload fidelity.
import { describe, expect, it } from 'vitest';
import type { ClaimedTask } from '../../lib/engine/types';
import { LONG_LEASE, UUID, sleep, useStore, type StoreFactory } from './harness';

const PAYLOAD = {
  text: 'héllo wörld — ✓ 日本語 "quoted" \\ back\nslash',
  int: 42,
  negative: -7,
  float: 3.14159,
  big: 9007199254740991,
  yes: true,
  no: false,
  nothing: null,
  list: [1, 'two', { three: [3] }, [], {}],
  nested: { deep: { deeper: { deepest: 'x'.repeat(2000) } } },
};

export function lifecycleTests(factory: StoreFactory) {
  describe('lifecycle', () => {
    const h = useStore(factory);

    it('enqueue → claim → succeed records the attempt and the result', async () => {
      const { store } = h();
      const slot = await h().worker('worker-a');
      const before = Date.now();
      const r = await store.commands.enqueue({
        kind: 'handler',
        command: 'demo.echo',
        payload: { n: 1 },
        queue: 'default',
        caller: 'contract',
      });
      expect(r.created).toBe(true);
      expect(r.token).toMatch(UUID);

      const pending = await h().task(r.token);
      expect(pending).toMatchObject({
        token: r.token,
        status: 'pending',
        queue: 'default',
        kind: 'handler',
        command: 'demo.echo',
        payload: { n: 1 },
        priority: 0,
        attempts: 0,
        caller: 'contract',
        startedAt: null,
        finishedAt: null,
        workerId: null,
        cancelRequested: false,
        lastError: null,
        history: [],
      });
      expect(pending.createdAt).toBeInstanceOf(Date);
      expect(pending.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(pending.runAfter.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

      const c = await h().claimOne(slot);
      expect(c).toMatchObject({
        token: r.token,
        queue: 'default',
        kind: 'handler',
        command: 'demo.echo',
        payload: { n: 1 },
        attempt: 1,
        workerId: 'worker-a',
        session: slot.session,
        maxAttempts: pending.maxAttempts,
      });
      expect(c.id).toBe(pending.id);
      expect(c.startedAt).toBeInstanceOf(Date);
      expect(typeof c.backoffMs).toBe('number');

      const running = await h().task(r.token);
      expect(running).toMatchObject({ status: 'running', attempts: 1, workerId: 'worker-a' });
      expect(running.startedAt).toBeInstanceOf(Date);
      expect(running.leaseUntil!.getTime()).toBeGreaterThan(Date.now());
      expect(running.history).toHaveLength(1);
      expect(running.history[0]).toMatchObject({
        token: r.token,
        attempt: 1,
        workerId: 'worker-a',
        session: slot.session,
        outcome: 'running',
        endedAt: null,
        errorNumber: null,
        errorMessage: null,
      });

      expect(await h().succeed(c, { answer: 42, list: [1, 2] })).toBe(true);
      const done = await h().task(r.token);
      expect(done).toMatchObject({ status: 'succeeded', attempts: 1, result: { answer: 42, list: [1, 2] }, lastError: null });
      expect(done.finishedAt).toBeInstanceOf(Date);
      expect(done.finishedAt!.getTime()).toBeGreaterThanOrEqual(done.startedAt!.getTime());
      expect(done.history).toHaveLength(1);
      const a = done.history[0]!;
      expect(a).toMatchObject({ attempt: 1, workerId: 'worker-a', session: slot.session, outcome: 'succeeded' });
      expect(a.endedAt).toBeInstanceOf(Date);
      expect(a.endedAt!.getTime()).toBeGreaterThanOrEqual(a.startedAt.getTime());

      await h().claimNone(slot);
    });

    it('getTask of an unknown token is null', async () => {
      expect(await h().store.reads.getTask('00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it('tokens are distinct lowercase uuids', async () => {
      const tokens = new Set<string>();
      for (let i = 0; i < 20; i++) tokens.add(await h().add());
      expect(tokens.size).toBe(20);
      for (const t of tokens) expect(t).toMatch(UUID);
    });

    it('payload and result round-trip JSON exactly', async () => {
      const slot = await h().worker();
      const token = await h().add({ payload: PAYLOAD });
      expect((await h().task(token)).payload).toEqual(PAYLOAD);
      const c = await h().claimOne(slot);
      expect(c.payload).toEqual(PAYLOAD);
      expect(await h().succeed(c, PAYLOAD)).toBe(true);
      expect((await h().task(token)).result).toEqual(PAYLOAD);
    });

    it('an absent payload reads back as null; scalar payloads round-trip', async () => {
      const none = (await h().store.commands.enqueue({ kind: 'handler', command: 'demo.echo' })).token;
      expect((await h().task(none)).payload).toBeNull();
      for (const p of ['a string', 0, 12.5, true, [1, [2]]]) {
        const t = await h().add({ payload: p });
        expect((await h().task(t)).payload).toEqual(p);
      }
    });

    it('keeps the options given at enqueue', async () => {
      const token = await h().add({
        queue: 'reports',
        priority: 7,
        maxAttempts: 3,
        timeoutMs: 1500,
        dedupKey: 'opt-1',
        caller: 'someone',
        command: 'demo.sleep',
        payload: { ms: 1 },
      });
      expect(await h().task(token)).toMatchObject({
        queue: 'reports',
        priority: 7,
        maxAttempts: 3,
        timeoutMs: 1500,
        dedupKey: 'opt-1',
        caller: 'someone',
        command: 'demo.sleep',
        payload: { ms: 1 },
        kind: 'handler',
      });
      const sqlToken = (await h().store.commands.enqueue({ kind: 'sql', command: 'SELECT 1' })).token;
      expect(await h().task(sqlToken)).toMatchObject({ kind: 'sql', command: 'SELECT 1', queue: 'default' });
    });

    it('a task without maxAttempts gets its queue default (5 for a new queue)', async () => {
      const token = await h().add({ queue: 'fresh-queue' });
      expect((await h().task(token)).maxAttempts).toBe(5);
      const q = (await h().store.reads.listQueues()).find((v) => v.name === 'fresh-queue');
      if (q) expect(q.maxAttempts).toBe(5);
    });

    it('enqueueMany returns results in input order and every task is claimable', async () => {
      const { store } = h();
      const inputs = Array.from({ length: 25 }, (_, i) => ({ kind: 'handler' as const, command: 'demo.echo', payload: { i } }));
      const results = await store.commands.enqueueMany(inputs);
      expect(results).toHaveLength(25);
      expect(new Set(results.map((r) => r.token)).size).toBe(25);
      for (const [i, r] of results.entries()) {
        expect(r.created).toBe(true);
        expect(r.token).toMatch(UUID);
        expect((await h().task(r.token)).payload).toEqual({ i });
      }
      const slot = await h().worker();
      const claimed: number[] = [];
      for (let i = 0; i < 25; i++) {
        const c = await h().claimOne(slot);
        claimed.push((c.payload as { i: number }).i);
        expect(await h().succeed(c)).toBe(true);
      }
      // equal priority: oldest first, i.e. input order
      expect(claimed).toEqual(inputs.map((_, i) => i));
      await h().claimNone(slot);
    });

    it('enqueueMany of nothing returns nothing', async () => {
      expect(await h().store.commands.enqueueMany([])).toEqual([]);
    });

    it('onWake fires after an enqueue, and stops after unsubscribing', async () => {
      let calls = 0;
      const off = h().store.worker.onWake(() => {
        calls++;
      });
      await h().add();
      await sleep(20);
      expect(calls).toBeGreaterThanOrEqual(1);
      off();
      const seen = calls;
      await h().add();
      await sleep(20);
      expect(calls).toBe(seen);
    });

    it('migrate is idempotent on a live store', async () => {
      const token = await h().add({ payload: { keep: true } });
      await h().store.migrate();
      await h().store.migrate();
      expect((await h().task(token)).payload).toEqual({ keep: true });
      const slot = await h().worker();
      expect((await h().claimOne(slot, { leaseMs: LONG_LEASE })).token).toBe(token);
    });
  });
}
