// "Why isn't it running?" through the front door on a real SQLite file: the facts gathered by lib/api/why.ts
// from the reads, judged by lib/engine/why.ts, with a real pool as the live workers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../engine/errors';
import { sleep } from '../engine/handlers';
import type { Pool } from '../engine/pool';
import { openReadpast } from './open';
import type { Readpast } from './readpast';

let dir: string;
let rp: Readpast;
let pool: Pool | null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-why-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'why.db')}` });
  pool = null;
});

afterEach(async () => {
  await pool?.stop(0);
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startPool(concurrency = 2) {
  pool = rp.createPool({ concurrency, pollMs: 20, heartbeatMs: 50 });
  await pool.start();
}

async function until(fn: () => Promise<boolean>, ms = 5000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('why (front door, SQLite)', () => {
  it('no live worker, then paused with who and when, then ready once resumed', async () => {
    await rp.setQueue('wq', { paused: true }, 'alice');
    const { token } = await rp.enqueue({ command: 'demo.echo', queue: 'wq' });
    expect((await rp.why(token)).reason).toBe('no_worker');
    const [health] = await rp.queueHealth();
    expect(health).toMatchObject({ queue: 'wq', paused: true, noWorker: true, why: { reason: 'no_worker' } });

    await startPool();
    const w = await rp.why(token);
    expect(w.reason).toBe('paused');
    // (with its date when the pause was yesterday: a run across midnight UTC)
    expect(w.text).toMatch(/^Queue paused by alice at (\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d) UTC$/);
    expect((await rp.queueWhy('wq')).why?.reason).toBe('paused');

    await rp.setQueue('wq', { paused: false }, 'bob');
    await until(async () => (await rp.status(token)).status === 'succeeded');
    expect(await rp.why(token)).toMatchObject({ reason: 'not_pending', detail: { status: 'succeeded' } });
  });

  it('a full limit names the holder; a future run-at is scheduled', async () => {
    await startPool();
    await rp.setQueue('lq', { concurrencyLimit: 1 }, 'alice');
    const holder = (await rp.enqueue({ command: 'demo.sleep', queue: 'lq', payload: { ms: 10_000 } })).token;
    await until(async () => (await rp.status(holder)).status === 'running');
    const waiting = (await rp.enqueue({ command: 'demo.echo', queue: 'lq' })).token;
    const w = await rp.why(waiting);
    expect(w).toMatchObject({ reason: 'limit_full', detail: { held: 1, limit: 1 } });
    expect(w.text).toContain(`held by ${holder.slice(0, 8)}`);
    await rp.cancel(holder);

    const later = (await rp.enqueue({ command: 'demo.echo', queue: 'sq', runAt: new Date(Date.now() + 600_000).toISOString() })).token;
    expect((await rp.why(later)).reason).toBe('scheduled');
  });

  it('a pool that claims only from other queues does not serve this one (--queues)', async () => {
    pool = rp.createPool({ concurrency: 1, pollMs: 20, heartbeatMs: 50, queues: ['emails'] });
    await pool.start();
    const { token } = await rp.enqueue({ command: 'demo.echo', queue: 'reports' });
    const w = await rp.why(token);
    expect(w).toMatchObject({ reason: 'no_worker', detail: { queue: 'reports', liveWorkers: 0, elsewhere: 1 } });
    expect(w.text).toBe('No live worker serves queue reports (1 live worker claims only from other queues)');
    const health = (await rp.queueHealth()).find((q) => q.queue === 'reports');
    expect(health).toMatchObject({ noWorker: true, why: { reason: 'no_worker' } });
    expect((await rp.status(token)).status).toBe('pending');
    // the queue it does serve runs
    const served = (await rp.enqueue({ command: 'demo.echo', queue: 'emails' })).token;
    await until(async () => (await rp.status(served)).status === 'succeeded');
    expect((await rp.queueHealth()).find((q) => q.queue === 'emails')?.noWorker).toBe(false);
  });

  it('a waiting task: the parents left with their node ids and states, then what to do once one failed', async () => {
    await rp.setQueue('held', { paused: true }, 'alice');
    const { tokens } = await rp.flow({
      nodes: [
        { id: 'load-a', command: 'demo.echo' },
        { id: 'load-b', command: 'demo.echo' },
        { id: 'load-c', command: 'demo.echo', queue: 'held' },
        { id: 'merge', command: 'demo.echo', dependsOn: ['load-a', 'load-b', { id: 'load-c', onParentFailure: 'wait' }] },
      ],
    });
    const first = await rp.why(tokens.merge!.toUpperCase());
    expect(first).toMatchObject({ reason: 'waiting', detail: { left: 3, total: 3 } });
    expect(first.text).toBe(`Waiting for 3 of 3 parents: load-a (pending), load-b (pending), ` + `load-c (pending)`);
    await startPool();
    await until(async () => (await rp.status(tokens['load-a']!)).status === 'succeeded');
    await until(async () => (await rp.status(tokens['load-b']!)).status === 'succeeded');
    expect((await rp.why(tokens.merge!)).text).toBe(`Waiting for 1 of 3 parents: load-c (pending)`);
    await rp.cancel(tokens['load-c']!);
    const stuck = await rp.why(tokens.merge!);
    expect(stuck).toMatchObject({ reason: 'waiting', detail: { left: 1, total: 3 } });
    expect(stuck.text).toBe(`Waiting for 1 of 3 parents: load-c (cancelled) — 1 parent failed: retry it, or cancel this task`);
  });

  it('an unknown token is not found', async () => {
    await expect(rp.why('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
  });
});
