// The pool against a real SQLite file: timeouts, cooperative cancel, graceful shutdown, live resize,
// lost leases, backoff and the bounded drain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep } from '../engine/handlers';
import type { Pool } from '../engine/pool';
import type { Store } from '../engine/ports';
import { openStore } from './open';
import { Readpast, readModelOf } from './readpast';

let dir: string;
let store: Store;
let rp: Readpast;
let pools: Pool[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-pool-'));
  store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
  rp = new Readpast(store);
  pools = [];
});

afterEach(async () => {
  for (const p of pools) await p.stop(0);
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

function pool(opts: Parameters<Readpast['createPool']>[0] = {}) {
  const p = rp.createPool({ concurrency: 2, heartbeatMs: 50, pollMs: 50, ...opts });
  pools.push(p);
  return p;
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; last value ${JSON.stringify(v)}`);
    await sleep(20);
  }
}

const statusOf = (token: string) => rp.status(token);

describe('pool', () => {
  it('runs handlers and records results and attempts', async () => {
    const { token } = await rp.enqueue({ command: 'demo.echo', payload: { a: [1, 'x'] } });
    await pool().start();
    const s = await until(
      () => statusOf(token),
      (s) => s.status === 'succeeded',
    );
    expect(s.result).toEqual({ a: [1, 'x'] });
    expect(s.history).toHaveLength(1);
    expect(s.history[0]!.outcome).toBe('succeeded');
    expect(s.history[0]!.session).toBeGreaterThan(50);
  });

  it('times out a handler through its AbortSignal and retries it with backoff', async () => {
    const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 5000 }, timeoutMs: 100, maxAttempts: 2 });
    await pool().start();
    const s = await until(
      () => statusOf(token),
      (s) => s.status === 'dead',
    );
    expect(s.history.map((h) => h.outcome)).toEqual(['timed_out', 'timed_out']);
    expect(s.lastError?.message).toMatch(/timed out after 100 ms/);
    // the second attempt waited for the backoff (base 1 s, ±25 %)
    const gap = new Date(s.history[1]!.startedAt!).getTime() - new Date(s.history[0]!.endedAt!).getTime();
    expect(gap).toBeGreaterThanOrEqual(700);
  });

  it('cancels a running task cooperatively', async () => {
    const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 30_000 } });
    await pool().start();
    await until(
      () => statusOf(token),
      (s) => s.status === 'running',
    );
    expect(await rp.cancel(token)).toBe('cancel_requested');
    const s = await until(
      () => statusOf(token),
      (s) => s.status === 'cancelled',
    );
    expect(s.history.at(-1)!.outcome).toBe('cancelled');
  });

  it('sends a non-retryable error straight to dead', async () => {
    const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 'soon' }, maxAttempts: 5 });
    await pool().start();
    const s = await until(
      () => statusOf(token),
      (s) => s.status === 'dead',
    );
    expect(s.attempts).toBe(1);
    expect(s.lastError?.message).toMatch(/ms must be an integer/);
  });

  it('gives running tasks back on shutdown after the grace period', async () => {
    const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 30_000 }, maxAttempts: 1 });
    const p = pool({ maintenance: false });
    await p.start();
    await until(
      () => statusOf(token),
      (s) => s.status === 'running',
    );
    await p.stop(100);
    const s = await statusOf(token);
    expect(s.status).toBe('pending');
    expect(s.history[0]!.outcome).toBe('abandoned');
    expect((await readModelOf(rp).listWorkers()).every((w) => w.state === 'stopped')).toBe(true);
  });

  it('lets a task that finishes within the grace period succeed', async () => {
    const { token } = await rp.enqueue({ command: 'demo.sleep', payload: { ms: 300 } });
    const p = pool({ maintenance: false });
    await p.start();
    await until(
      () => statusOf(token),
      (s) => s.status === 'running',
    );
    await p.stop(5000);
    expect((await statusOf(token)).status).toBe('succeeded');
  });

  it('resizes live without interrupting running tasks', async () => {
    const tokens = (await rp.enqueueMany(Array.from({ length: 6 }, () => ({ command: 'demo.sleep', payload: { ms: 400 } })))).map(
      (r) => r.token,
    );
    const p = pool({ concurrency: 2 });
    await p.start();
    await p.resize(5);
    expect(p.size).toBe(5);
    const running = (await readModelOf(rp).listWorkers()).filter((w) => w.state === 'running');
    expect(running).toHaveLength(5);
    await until(
      () => readModelOf(rp).listRunning(),
      (r) => r.length >= 4,
    );
    await p.resize(1);
    expect(p.size).toBe(1);
    for (const t of tokens)
      await until(
        () => statusOf(t),
        (s) => s.status === 'succeeded',
      );
    // every task ran exactly once: shrinking never abandoned an attempt
    for (const t of tokens) expect((await statusOf(t)).history.map((h) => h.outcome)).toEqual(['succeeded']);
    await until(
      () => readModelOf(rp).listWorkers(),
      (ws) => ws.filter((w) => w.state === 'running').length === 1,
    );
  });

  it('aborts an attempt whose lease was lost and never records its late result', async () => {
    let sawAbort = false;
    rp.registry.register('test.stubborn', async (_p, ctx) => {
      try {
        await sleep(2000, ctx.signal);
      } catch (e) {
        sawAbort = true;
        throw e;
      }
    });
    const { token } = await rp.enqueue({ command: 'test.stubborn', maxAttempts: 3 });
    // a pool whose heartbeats are rare, so its lease (200 ms) expires and another pool's maintenance rescues it
    const slow = pool({ leaseMs: 200, heartbeatMs: 600, maintenance: false, concurrency: 1 });
    await slow.start();
    await until(
      () => statusOf(token),
      (s) => s.status === 'running',
    );
    await sleep(300);
    const rescued = await store.maintenance.rescueExpired();
    expect(rescued.retried).toBe(1);
    await until(
      async () => sawAbort,
      (v) => v,
      5000,
    );
    const s = await statusOf(token);
    expect(s.history[0]!.outcome).toBe('abandoned');
  });

  it('drains due tasks within a time bound', async () => {
    await rp.enqueueMany(Array.from({ length: 20 }, (_, i) => ({ command: 'demo.echo', payload: { i } })));
    const p = pool({ concurrency: 4 });
    const r = await p.runUntilIdle(10_000);
    expect(r.processed).toBe(20);
    const q = (await readModelOf(rp).countsByQueue()).find((c) => c.queue === 'default')!;
    expect(q.succeeded).toBe(20);
  });

  it('starts a task enqueued in-process within milliseconds of an idle pool', async () => {
    await pool({ pollMs: 5000 }).start();
    await sleep(100);
    const { token } = await rp.enqueue({ command: 'demo.echo' });
    const s = await until(
      () => statusOf(token),
      (s) => s.status === 'succeeded',
      2000,
    );
    const latency = new Date(s.history[0]!.startedAt!).getTime() - new Date(s.createdAt!).getTime();
    expect(latency).toBeLessThan(1000); // woken by the enqueue, not by the 5 s poll
  });
});
