// Concurrency keys across processes: three `readpast worker` processes × 4 workers drain 20 keys of a queue
// with per-key limit 1 and queue limit 6. From the ExecutionLog: no key ever has two attempts at once, the
// queue never more than 6, every task succeeds. One process is killed with SIGKILL while it runs a long task
// of key k00: each key the dead process held stays held until that attempt's lease lapses (at most a lease
// after the kill) and no longer — the next task of the key starts within a margin of the lapse.
import { describe, expect, it } from 'vitest';
import { testBed } from './bed';
import { waitFor, WorkerProcess } from './helpers';
import { byKey, keyedAttempts, queueTasks, startMs, type KeyedAttempt } from './throttle';
import { maxOverlap, type Interval } from './overlap';
import { readModelOf } from '../../lib/api/readpast';

const QUEUE = 'keys';
const KEYS = 20;
const PER_KEY = 15;
const QUEUE_LIMIT = 6;
const LEASE_S = 4;
/** how late after the lease lapses another worker may start the next task of the key (poll, rescue, a busy machine) */
const MARGIN_MS = 3000;
const LONG_MS = 4000;

const key = (i: number) => `k${String(i).padStart(2, '0')}`;

describe('concurrency keys across three worker processes', () => {
  const bed = testBed();

  it('one attempt per key at once, six per queue; a killed worker holds its key only until the lease lapses', async () => {
    const { db, lib, workers } = bed;
    await lib.setQueue(QUEUE, { concurrencyLimit: QUEUE_LIMIT, perKeyLimit: 1 }, 'test');
    for (let p = 0; p < 3; p++) {
      workers.push(new WorkerProcess(['--concurrency', '4', '--lease-seconds', String(LEASE_S), '--queues', QUEUE], db));
    }
    const idsByProcess = await Promise.all(workers.map((w) => w.started()));
    const processOf = new Map(idsByProcess.flatMap((ids, p) => ids.map((id) => [id, p] as const)));

    const tokens = (
      await lib.enqueueMany(
        Array.from({ length: KEYS * PER_KEY }, (_, i) => ({
          command: 'demo.sleep',
          payload: { ms: 20 + ((i * 37) % 80) },
          queue: QUEUE,
          concurrencyKey: key(i % KEYS),
        })),
      )
    ).map((r) => r.token);
    // in the middle of the drain, a long task of k00 goes first within its key (priority): the kill below lands
    // in the middle of it, with more tasks of k00 waiting
    const succeeded = async () => (await readModelOf(lib).countsByQueue()).find((x) => x.queue === QUEUE)?.succeeded ?? 0;
    await waitFor(async () => (await succeeded()) >= tokens.length / 3, { timeoutMs: 30_000, what: 'a third of the tasks', workers });
    const long = await lib.enqueue({ command: 'demo.sleep', payload: { ms: LONG_MS }, queue: QUEUE, concurrencyKey: key(0), priority: 10 });
    tokens.push(long.token);

    const running = await waitFor(async () => (await readModelOf(lib).listRunning()).find((r) => r.token === long.token), {
      timeoutMs: 30_000,
      intervalMs: 20,
      what: 'the long k00 task to start',
      workers,
    });
    const victim = workers[processOf.get(running.workerId)!]!;
    const killedIds = new Set(idsByProcess[workers.indexOf(victim)]);
    expect((await victim.stop('SIGKILL')).signal).toBe('SIGKILL');
    const deadAt = Date.now();
    // what the dead process held, frozen: nothing renews these leases any more, the rescue waits for them to lapse
    const held = (await readModelOf(lib).listRunning()).filter((r) => killedIds.has(r.workerId));
    expect(held.map((r) => r.token)).toContain(long.token);
    // mid-drain, with other tasks of k00 waiting for its slot
    expect(await succeeded()).toBeLessThan(tokens.length - 50);
    const k00 = await readModelOf(lib).listTasks({ queue: QUEUE, concurrencyKey: key(0), status: 'pending', limit: 5 });
    expect(k00.items.filter((t) => t.token !== long.token).length).toBeGreaterThan(0);
    const leaseEnd = new Map(held.map((r) => [r.attemptId, r.leaseUntil!.getTime()]));
    for (const [, until] of leaseEnd) expect(until).toBeLessThanOrEqual(deadAt + LEASE_S * 1000);

    await waitFor(
      async () => {
        const c = (await readModelOf(lib).countsByQueue()).find((x) => x.queue === QUEUE);
        return c !== undefined && c.pending === 0 && c.running === 0;
      },
      { timeoutMs: 50_000, intervalMs: 250, what: `${tokens.length} tasks to drain`, workers },
    );

    // ---- every task succeeded, each with exactly one succeeded attempt; the only others are the dead process's
    const tasks = await queueTasks(lib, QUEUE);
    expect(tasks).toHaveLength(KEYS * PER_KEY + 1);
    expect(tasks.filter((t) => t.status !== 'succeeded').map((t) => `${t.token} ${t.status}`)).toEqual([]);
    expect(new Set(tasks.map((t) => t.concurrencyKey))).toEqual(new Set(Array.from({ length: KEYS }, (_, i) => key(i))));
    const attempts = await keyedAttempts(lib, QUEUE);
    const problems: string[] = [];
    for (const t of tasks) {
      const mine = attempts.filter((a) => a.token === t.token);
      if (mine.filter((a) => a.outcome === 'succeeded').length !== 1) problems.push(`${t.token}: ${mine.map((a) => a.outcome)}`);
    }
    expect(problems).toEqual([]);
    const abandoned = attempts.filter((a) => a.outcome !== 'succeeded');
    expect(abandoned.map((a) => `${a.id} ${a.outcome}`).sort()).toEqual([...leaseEnd.keys()].map((id) => `${id} abandoned`).sort());

    // ---- what held a slot at once: an attempt of the dead process held its key and its queue token until its lease lapsed
    const interval = (a: KeyedAttempt): Interval => ({ start: startMs(a), end: leaseEnd.get(a.id) ?? new Date(a.endedAt!).getTime() });
    for (const [k, list] of byKey(attempts)) {
      expect(maxOverlap(list.map(interval)), `attempts of key ${k} at once`).toBe(1);
    }
    expect(maxOverlap(attempts.map(interval)), 'attempts of the queue at once').toBeLessThanOrEqual(QUEUE_LIMIT);
    expect(maxOverlap(attempts.map(interval)), 'the queue limit was used').toBe(QUEUE_LIMIT);

    // ---- a key held by the dead process is free once the lease lapsed: the next task of the key starts soon after
    const lateness: string[] = [];
    for (const a of abandoned) {
      const until = leaseEnd.get(a.id)!;
      const next = attempts.find((b) => b.key === a.key && b.id !== a.id && startMs(b) >= startMs(a));
      expect(next, `a later attempt of key ${a.key}`).toBeDefined();
      const late = startMs(next!) - until;
      expect(late, `key ${a.key}: next start ${late} ms after the lease lapsed`).toBeGreaterThanOrEqual(0);
      expect(late, `key ${a.key}: next start ${late} ms after the lease lapsed`).toBeLessThanOrEqual(MARGIN_MS);
      lateness.push(`${a.key} +${late} ms (lapse ${until - deadAt} ms after the kill)`);
    }
    console.info(`keys: the dead process's keys started again after their leases lapsed: ${lateness.join(', ')}`);

    for (const w of workers.filter((x) => x !== victim)) expect(await w.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 90_000);
});
