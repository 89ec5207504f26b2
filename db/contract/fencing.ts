// Fencing of attempt writes, heartbeats and lease rescue.
import { describe, expect, it } from 'vitest';
import { LONG_LEASE, err, sleep, useStore, type StoreFactory } from './harness';

const SHORT_LEASE = 100;
const PAST_LEASE = 250;

export function fencingTests(factory: StoreFactory) {
  describe('fencing', () => {
    const h = useStore(factory);

    it('rejects a finish from a worker that lost its lease and keeps the new attempt intact', async () => {
      const { store } = h();
      const a = await h().worker('old-worker');
      const b = await h().worker('new-worker');
      const token = await h().add({ maxAttempts: 3 });
      const first = await h().claimOne(a, { leaseMs: SHORT_LEASE });
      await sleep(PAST_LEASE);
      expect(await store.maintenance.rescueExpired()).toEqual({ retried: 1, dead: 0 });
      const second = await h().claimOne(b);
      expect(second.token).toBe(token);
      expect(second.attempt).toBe(2);
      const snapshot = await h().task(token);

      // the old worker wakes up and reports success, failure, death or cancel: all rejected
      expect(await h().succeed(first, { stale: true })).toBe(false);
      expect(await h().kill(first, 'stale failure')).toBe(false);
      expect(await h().retryLater(first, 0)).toBe(false);
      expect(await h().settle(first, { kind: 'cancelled', error: null })).toBe(false);
      // the right task and attempt number but the wrong worker: rejected too
      expect(await h().settle({ id: second.id, workerId: 'old-worker', attempt: 2 }, { kind: 'succeeded', result: 1 })).toBe(false);
      // the right worker but a wrong attempt number: rejected
      expect(await h().settle({ id: second.id, workerId: 'new-worker', attempt: 1 }, { kind: 'succeeded', result: 1 })).toBe(false);

      const mid = await h().task(token);
      expect(mid).toEqual(snapshot);
      expect(mid).toMatchObject({ status: 'running', workerId: 'new-worker', attempts: 2, result: null, cancelRequested: false });
      expect(mid.lastError?.message).not.toBe('stale failure');
      const byAttempt = new Map(mid.history.map((x) => [x.attempt, x]));
      expect(byAttempt.get(1)).toMatchObject({ workerId: 'old-worker', outcome: 'abandoned' });
      expect(byAttempt.get(2)).toMatchObject({ workerId: 'new-worker', outcome: 'running', endedAt: null });

      // the owner's own finish is accepted
      expect(await h().succeed(second, { fresh: true })).toBe(true);
      const done = await h().task(token);
      expect(done).toMatchObject({ status: 'succeeded', result: { fresh: true } });
      expect(done.history.find((x) => x.attempt === 1)!.outcome).toBe('abandoned');
      expect(done.history.find((x) => x.attempt === 2)!.outcome).toBe('succeeded');
    });

    it('accepts a finish only once', async () => {
      const slot = await h().worker();
      const token = await h().add();
      const c = await h().claimOne(slot);
      expect(await h().succeed(c, 'first')).toBe(true);
      expect(await h().succeed(c, 'second')).toBe(false);
      expect(await h().kill(c)).toBe(false);
      expect(await h().task(token)).toMatchObject({ status: 'succeeded', result: 'first', lastError: null });
    });

    it('finish settles several attempts at once and reports each one', async () => {
      const { store } = h();
      const a = await h().worker();
      const b = await h().worker();
      const t1 = await h().add();
      const t2 = await h().add();
      const [c1, c2] = await store.worker.claim([a, b], { leaseMs: LONG_LEASE });
      const oks = await store.worker.finish([
        { taskId: c1!.id, workerId: c1!.workerId, attempt: c1!.attempt, settlement: { kind: 'succeeded', result: 'one' } },
        { taskId: c2!.id, workerId: 'nobody', attempt: c2!.attempt, settlement: { kind: 'succeeded', result: 'two' } },
        { taskId: c2!.id, workerId: c2!.workerId, attempt: c2!.attempt, settlement: { kind: 'dead', outcome: 'failed', error: err('x') } },
      ]);
      expect(oks).toEqual([true, false, true]);
      const byToken = new Map([
        [c1!.token, 'succeeded'],
        [c2!.token, 'dead'],
      ]);
      for (const t of [t1, t2]) expect(await h().status(t)).toBe(byToken.get(t));
    });

    it('heartbeat returns only the attempts a worker still owns', async () => {
      const { store } = h();
      const a = await h().worker();
      const b = await h().worker();
      await h().add();
      await h().add();
      const ca = await h().claimOne(a);
      const cb = await h().claimOne(b);
      const hb = await store.worker.heartbeat({
        workerIds: [a.workerId, b.workerId],
        running: [
          { taskId: ca.id, workerId: a.workerId, attempt: 1 },
          { taskId: cb.id, workerId: a.workerId, attempt: 1 }, // not a's task
          { taskId: cb.id, workerId: b.workerId, attempt: 2 }, // wrong attempt
          { taskId: 999_999, workerId: b.workerId, attempt: 1 }, // no such task
        ],
        leaseMs: LONG_LEASE,
      });
      expect(hb.owned).toEqual([ca.id]);
      expect(hb.cancelRequested).toEqual([]);

      expect(await h().succeed(ca)).toBe(true);
      const after = await store.worker.heartbeat({
        workerIds: [a.workerId],
        running: [{ taskId: ca.id, workerId: a.workerId, attempt: 1 }],
        leaseMs: LONG_LEASE,
      });
      expect(after.owned).toEqual([]);
    });

    it('a claim held behind a lock longer than its lease hands out the whole lease, from when it took the task', async () => {
      const { store } = h();
      const a = await h().worker('held-claimer');
      const clock = await h().worker('clock');
      const token = await h().add({ queue: 'held' });
      const LEASE = 1_500;
      const HOLD = 2_500;
      // another writer holds the queue's row (SQL Server: its row lock; SQLite: the file's write lock)
      const queues = store.sqlServer ? 'readpast.Queues' : 'Queues';
      const t0 = await h().storeNow(clock);
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const writer = store.commands.transaction(async (tx) => {
        await tx.execute(`UPDATE ${queues} SET paused = paused WHERE name = @q`, { q: 'held' });
        locked();
        await sleep(HOLD);
      });
      await isLocked;
      const claim = store.worker.claim([a], { leaseMs: LEASE, queues: ['held'] });
      await writer;
      const got = await claim;
      const returned = await h().storeNow(clock);
      expect(got.map((c) => c.token)).toEqual([token]);
      const t = await h().task(token);
      // taken once the writer let go, not when the claim began waiting
      expect(got[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(t0 + HOLD - 50);
      expect(t.startedAt!.getTime()).toBe(got[0]!.startedAt.getTime());
      // a whole lease from then: still live when the worker has the task
      expect(t.leaseUntil!.getTime() - t.startedAt!.getTime()).toBe(LEASE);
      expect(t.leaseUntil!.getTime()).toBeGreaterThan(returned);
      expect(
        (
          await store.worker.heartbeat({
            workerIds: [a.workerId],
            running: [{ taskId: got[0]!.id, workerId: a.workerId, attempt: got[0]!.attempt }],
            leaseMs: LEASE,
          })
        ).owned,
      ).toEqual([got[0]!.id]);
    });

    it('a finish held behind a lock until its lease lapsed is refused (the fence reads the time once it holds the row)', async () => {
      const { store } = h();
      const a = await h().worker('held-finisher');
      const token = await h().add({ queue: 'held-finish' });
      const c = await h().claimOne(a, { leaseMs: 1_500, queues: ['held-finish'] });
      const tasks = store.sqlServer ? 'readpast.Tasks' : 'Tasks';
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const writer = store.commands.transaction(async (tx) => {
        await tx.execute(`UPDATE ${tasks} SET priority = priority WHERE token = @t`, { t: token });
        locked();
        await sleep(2_500);
      });
      await isLocked;
      const finish = h().succeed(c);
      await writer;
      expect(await finish).toBe(false);
      expect(await h().status(token)).toBe('running');
    });

    it('a heartbeat renews the lease so the task is not rescued', async () => {
      const { store } = h();
      const slot = await h().worker();
      await h().add();
      // long enough for the heartbeat below to arrive in time over a network (only a live lease is renewed)
      const keepLease = 1_500;
      const claimedAt = Date.now();
      const keep = await h().claimOne(slot, { leaseMs: keepLease });
      const other = await h().worker();
      const lose = await h().add();
      const lost = await h().claimOne(other, { leaseMs: SHORT_LEASE });
      expect(lost.token).toBe(lose);
      const before = (await h().task(keep.token)).leaseUntil!.getTime();

      const hb = await store.worker.heartbeat({
        workerIds: [slot.workerId],
        running: [{ taskId: keep.id, workerId: slot.workerId, attempt: keep.attempt }],
        leaseMs: 10_000,
      });
      expect(hb.owned).toEqual([keep.id]);
      // how long the database worked on it (the pool tells a slow server from a wait for a connection)
      expect(hb.serverMs).toBeGreaterThanOrEqual(0);
      const renewed = (await h().task(keep.token)).leaseUntil!.getTime();
      expect(renewed).toBeGreaterThan(before);
      expect(renewed).toBeGreaterThan(Date.now() + 5_000);

      // past the first lease of both: only the renewed one survives
      await sleep(Math.max(PAST_LEASE, claimedAt + keepLease + 250 - Date.now()));
      expect(await store.maintenance.rescueExpired()).toEqual({ retried: 1, dead: 0 });
      expect(await h().task(keep.token)).toMatchObject({ status: 'running', workerId: slot.workerId, attempts: 1 });
      expect(await h().status(lose)).toBe('pending');
      expect(await h().succeed(keep)).toBe(true);
    });
  });

  describe('expired leases (invariant 7)', () => {
    const h = useStore(factory);

    it('a lapsed lease is lost for good: no heartbeat revives it, its late finish is refused, its token serves one holder', async () => {
      const { store } = h();
      await store.commands.setQueue('single', { concurrencyLimit: 1 }, 'contract');
      const tokenA = await h().add({ queue: 'single', payload: 'A', maxAttempts: 3 });
      const tokenB = await h().add({ queue: 'single', payload: 'B', maxAttempts: 3 });
      const wa = await h().worker('stalled');
      const wb = await h().worker('healthy');
      /** at most one live grant of the queue's one token, and who holds it */
      const holders = async () => {
        const granted = (await store.reads.listTokens('single')).filter((t) => t.status === 'granted' && !t.holderDead);
        expect(granted.length).toBeLessThanOrEqual(1);
        const q = (await store.reads.listQueues()).find((x) => x.name === 'single')!;
        expect(q.granted).toBeLessThanOrEqual(1);
        return granted.map((t) => t.token);
      };

      // a lease long enough for the checks below to run within it over a network, then let it lapse
      const leaseA = 1_000;
      const a = await h().claimOne(wa, { leaseMs: leaseA, queues: ['single'] });
      const claimedA = Date.now();
      expect(a.token).toBe(tokenA);
      expect(await holders()).toEqual([tokenA]);
      await h().claimNone(wb, { queues: ['single'] });
      await sleep(Math.max(0, claimedA + leaseA + 250 - Date.now()));

      // no rescue ran: A's token is free again, and B gets it
      const b = await h().claimOne(wb, { queues: ['single'] });
      expect(b.token).toBe(tokenB);
      expect(await holders()).toEqual([tokenB]);
      const grantB = (await store.reads.listTokens('single')).find((t) => t.status === 'granted')!;
      expect(grantB.tokenNo).toBe(1);

      // A's worker wakes up: its heartbeat does not renew the lapsed lease (the worker beat is still recorded)
      const expiredAt = (await h().task(tokenA)).leaseUntil!.getTime();
      const hb = await store.worker.heartbeat({
        workerIds: [wa.workerId],
        running: [{ taskId: a.id, workerId: wa.workerId, attempt: a.attempt }],
        leaseMs: LONG_LEASE,
      });
      expect(hb).toMatchObject({ owned: [], cancelRequested: [] });
      expect((await h().task(tokenA)).leaseUntil!.getTime()).toBe(expiredAt);
      expect((await store.reads.listWorkers()).find((w) => w.workerId === wa.workerId)!.state).toBe('running');
      expect(await holders()).toEqual([tokenB]);

      // A's late results are refused, whatever they say, and change nothing
      const before = await h().task(tokenA);
      expect(await h().succeed(a, { late: true })).toBe(false);
      expect(await h().kill(a, 'late failure')).toBe(false);
      expect(await h().retryLater(a, 0)).toBe(false);
      expect(await h().settle(a, { kind: 'cancelled', error: null })).toBe(false);
      expect(await h().task(tokenA)).toEqual(before);
      expect(before).toMatchObject({ status: 'running', workerId: wa.workerId, attempts: 1, result: null });
      expect(await holders()).toEqual([tokenB]);

      // B runs on and finishes; the rescue retries A, which then runs with the token
      const renewB = await store.worker.heartbeat({
        workerIds: [wb.workerId],
        running: [{ taskId: b.id, workerId: wb.workerId, attempt: b.attempt }],
        leaseMs: LONG_LEASE,
      });
      expect(renewB.owned).toEqual([b.id]);
      expect(await store.maintenance.rescueExpired()).toEqual({ retried: 1, dead: 0 });
      expect(await h().status(tokenB)).toBe('running');
      expect(await holders()).toEqual([tokenB]);
      await h().claimNone(wa, { queues: ['single'] });
      expect(await h().succeed(b, 'B done')).toBe(true);
      expect(await holders()).toEqual([]);

      const again = await h().claimOne(wa, { queues: ['single'] });
      expect(again).toMatchObject({ token: tokenA, attempt: 2 });
      expect(await holders()).toEqual([tokenA]);
      expect(await h().succeed(again, 'A done')).toBe(true);
      const doneA = await h().task(tokenA);
      expect(doneA).toMatchObject({ status: 'succeeded', result: 'A done', attempts: 2 });
      expect(doneA.history.map((x) => [x.attempt, x.outcome])).toEqual([
        [1, 'abandoned'],
        [2, 'succeeded'],
      ]);
      expect(await h().task(tokenB)).toMatchObject({ status: 'succeeded', result: 'B done', attempts: 1 });
    });
  });

  describe('lease rescue', () => {
    const h = useStore(factory);

    it('does nothing while leases are valid', async () => {
      const slot = await h().worker();
      const token = await h().add();
      await h().claimOne(slot, { leaseMs: LONG_LEASE });
      expect(await h().store.maintenance.rescueExpired()).toEqual({ retried: 0, dead: 0 });
      expect(await h().status(token)).toBe('running');
    });

    it('abandons an expired attempt and puts the task back, claimable at once', async () => {
      const { store } = h();
      const slot = await h().worker('crashed');
      const token = await h().add({ maxAttempts: 3 });
      await h().claimOne(slot, { leaseMs: SHORT_LEASE });
      await sleep(PAST_LEASE);
      expect(await store.maintenance.rescueExpired()).toEqual({ retried: 1, dead: 0 });
      // a second pass finds nothing more
      expect(await store.maintenance.rescueExpired()).toEqual({ retried: 0, dead: 0 });

      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'pending', attempts: 1, maxAttempts: 3 });
      expect(t.runAfter.getTime()).toBeLessThanOrEqual(await h().storeNow(slot));
      expect(t.history).toHaveLength(1);
      expect(t.history[0]).toMatchObject({ attempt: 1, workerId: 'crashed', outcome: 'abandoned' });
      expect(t.history[0]!.endedAt).toBeInstanceOf(Date);
      expect(await store.reads.listRunning()).toEqual([]);

      const rescuer = await h().worker('rescuer');
      const c = await h().claimOne(rescuer);
      expect(c).toMatchObject({ token, attempt: 2, workerId: 'rescuer' });
      expect(await h().succeed(c)).toBe(true);
      const done = await h().task(token);
      expect(done).toMatchObject({ status: 'succeeded', attempts: 2 });
      expect(done.history.map((x) => [x.attempt, x.outcome]).sort()).toEqual([
        [1, 'abandoned'],
        [2, 'succeeded'],
      ]);
    });

    it('tells a lease lost while its worker was alive from a worker that stopped, with the last heartbeat', async () => {
      const { store } = h();
      const gone = await h().worker('gone-worker');
      const slow = await h().worker('slow-worker');
      const a = await h().add({ queue: 'why' });
      const b = await h().add({ queue: 'why' });
      const ca = await h().claimOne(gone, { leaseMs: SHORT_LEASE, queues: ['why'] });
      const cb = await h().claimOne(slow, { leaseMs: SHORT_LEASE, queues: ['why'] });
      expect([ca.token, cb.token].sort()).toEqual([a, b].sort());
      await sleep(PAST_LEASE);
      // the slow worker is heard from after its lease ended: too late to renew it, but alive
      const late = await store.worker.heartbeat({
        workerIds: [slow.workerId],
        running: [{ taskId: cb.id, workerId: slow.workerId, attempt: cb.attempt }],
        leaseMs: LONG_LEASE,
      });
      expect(late.owned).toEqual([]);
      expect(await store.maintenance.rescueExpired()).toEqual({ retried: 2, dead: 0 });
      const first = async (token: string) => (await h().task(token)).history.find((x) => x.attempt === 1)!;
      const crashed = await first(ca.token);
      expect(crashed).toMatchObject({ outcome: 'abandoned', abandonReason: 'worker_lost' });
      expect(crashed.errorMessage).toMatch(/^lease expired: worker gone-worker stopped renewing it/);
      expect(crashed.errorDetail).toMatch(/^worker gone-worker: last heartbeat \S+; lease ended \S+$/);
      const lost = await first(cb.token);
      expect(lost).toMatchObject({ outcome: 'abandoned', abandonReason: 'lease_lost' });
      expect(lost.errorMessage).toMatch(/^lease lost while its worker was alive: worker slow-worker/);
      expect(lost.errorDetail).toMatch(/^worker slow-worker: last heartbeat \S+; lease ended \S+$/);
      // the attempt list says the same
      const listed = (await store.reads.listAttempts({ queue: 'why' })).items.filter((x) => x.outcome === 'abandoned');
      expect(listed.map((x) => [x.token, x.abandonReason]).sort()).toEqual(
        [
          [ca.token, 'worker_lost'],
          [cb.token, 'lease_lost'],
        ].sort(),
      );
      // counted by queue and reason (/metrics)
      expect(await store.reads.abandonedSince(new Date(Date.now() - 3_600_000))).toEqual([
        { queue: 'why', reason: 'lease_lost', n: 1 },
        { queue: 'why', reason: 'worker_lost', n: 1 },
      ]);
      expect(await store.reads.abandonedSince(new Date(Date.now() + 3_600_000))).toEqual([]);
      // an attempt ended any other way has none
      const again = await h().claimOne(gone, { queues: ['why'] });
      expect(await h().succeed(again)).toBe(true);
      expect((await h().task(again.token)).history.find((x) => x.attempt === 2)!.abandonReason).toBeNull();
    });

    it('makes the task dead when its attempts are used up', async () => {
      const { store } = h();
      const slot = await h().worker();
      const token = await h().add({ maxAttempts: 2 });
      for (let attempt = 1; attempt <= 2; attempt++) {
        const c = await h().claimOne(slot, { leaseMs: SHORT_LEASE });
        expect(c.attempt).toBe(attempt);
        await sleep(PAST_LEASE);
        expect(await store.maintenance.rescueExpired()).toEqual(attempt < 2 ? { retried: 1, dead: 0 } : { retried: 0, dead: 1 });
      }
      const t = await h().task(token);
      expect(t).toMatchObject({ status: 'dead', attempts: 2 });
      expect(t.finishedAt).toBeInstanceOf(Date);
      expect(t.lastError).not.toBeNull();
      expect(t.lastError!.message.length).toBeGreaterThan(0);
      expect(t.history.map((x) => x.outcome)).toEqual(['abandoned', 'abandoned']);
      await h().claimNone(slot);
    });

    it('rescues many expired attempts in one pass', async () => {
      const { store } = h();
      const slots = [await h().worker(), await h().worker(), await h().worker()];
      await h().add({ maxAttempts: 1 });
      await h().add({ maxAttempts: 4 });
      await h().add({ maxAttempts: 4 });
      expect(await store.worker.claim(slots, { leaseMs: SHORT_LEASE })).toHaveLength(3);
      await sleep(PAST_LEASE);
      expect(await store.maintenance.rescueExpired()).toEqual({ retried: 2, dead: 1 });
      expect(await h().counts()).toEqual([
        { queue: 'default', waiting: 0, pending: 2, claimed: 0, running: 0, succeeded: 0, dead: 1, cancelled: 0 },
      ]);
    });
  });
}
