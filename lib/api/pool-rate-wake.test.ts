// A pool waiting on a rate limit wakes when the next slot opens — not at its next poll — against a real SQLite
// file; and the store's answer to "when does the next slot open".
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pool } from '../engine/pool';
import type { Store } from '../engine/ports';
import { openStore } from './open';
import { Readpast } from './readpast';

let dir: string;
let store: Store;
let rp: Readpast;
let pool: Pool | null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-rate-wake-'));
  store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
  rp = new Readpast(store);
  pool = null;
});

afterEach(async () => {
  await pool?.stop(0);
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('waking for a rate limit', () => {
  it('nextRateOpening: when the earliest start in a window leaves it, for queues with pending tasks only', async () => {
    await rp.setQueue('r', { rateLimit: { limit: 2, periodSeconds: 2 } }, 'test');
    expect(await store.worker.nextRateOpening(null)).toBeNull();
    for (let i = 0; i < 3; i++) await rp.enqueue({ command: 'demo.echo', queue: 'r', payload: { i } });
    await store.worker.registerWorker({ workerId: 'w1', host: 'h', pid: 1, role: 't' });
    await store.worker.registerWorker({ workerId: 'w2', host: 'h', pid: 1, role: 't' });
    const got = await store.worker.claim(
      [
        { workerId: 'w1', session: 1 },
        { workerId: 'w2', session: 1 },
      ],
      { leaseMs: 60_000 },
    );
    expect(got).toHaveLength(2);
    const ms = await store.worker.nextRateOpening(null);
    expect(ms).toBeGreaterThan(1500);
    expect(ms).toBeLessThanOrEqual(2000);
    // another queue's filter: nothing of it is rate limited
    expect(await store.worker.nextRateOpening(['other'])).toBeNull();
    expect(await store.worker.nextRateOpening(['r'])).toEqual(expect.any(Number));
    // nothing pending: no wake needed
    await rp.cancel((await store.reads.listTasks({ status: 'pending', queue: 'r' })).items[0]!.token);
    expect(await store.worker.nextRateOpening(null)).toBeNull();
  });

  it('a pool whose poll is far off starts the next task when the window opens', async () => {
    await rp.setQueue('r', { rateLimit: { limit: 2, periodSeconds: 1 } }, 'test');
    for (let i = 0; i < 6; i++) await rp.enqueue({ command: 'demo.echo', queue: 'r', payload: { i } });
    // a poll every 30 s: only the rate wake (or a settle's wake) can start tasks 3–6 within the test
    pool = rp.createPool({ concurrency: 4, heartbeatMs: 1000, pollMs: 30_000 });
    const t0 = Date.now();
    await pool.start();
    for (;;) {
      const done = (await store.reads.listTasks({ status: 'succeeded', queue: 'r' })).items.length;
      if (done === 6) break;
      if (Date.now() - t0 > 8000) throw new Error(`only ${done} of 6 done after 8 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const starts = (await store.reads.listTasks({ status: 'succeeded', queue: 'r' })).items
      .map((t) => t.startedAt!.getTime())
      .sort((a, b) => a - b);
    // pairs one window apart, each pair started within a fraction of a second of its window opening
    expect(starts[2]! - starts[0]!).toBeGreaterThanOrEqual(1000);
    expect(starts[5]! - starts[0]!).toBeLessThan(3500);
  });
});
