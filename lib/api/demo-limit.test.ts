// "Load demo workload" limits its demo queue once and never resets a limit someone set on it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_LIMIT, limitDemoQueue, loadDemoWorkload } from './demo';
import type { Readpast } from './readpast';
import { openReadpast } from './open';

let dir: string;
let rp: Readpast;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-demo-limit-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'db.sqlite')}` });
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const limit = async () => (await rp.queue(DEMO_LIMIT.queue)).concurrencyLimit;

describe('demo queue limit', () => {
  it('is set on a fresh database', async () => {
    await loadDemoWorkload(rp);
    expect(await limit()).toBe(DEMO_LIMIT.concurrencyLimit);
  });

  it('keeps a limit the user raised when the demo is loaded again', async () => {
    await loadDemoWorkload(rp);
    await rp.setQueue(DEMO_LIMIT.queue, { concurrencyLimit: 7 }, 'alice');
    await loadDemoWorkload(rp);
    expect(await limit()).toBe(7);
  });

  it('keeps a limit the user removed (unlimited) when the demo is loaded again', async () => {
    await loadDemoWorkload(rp);
    await rp.setQueue(DEMO_LIMIT.queue, { concurrencyLimit: null }, 'alice');
    expect(await limitDemoQueue(rp)).toBe(false);
    expect(await limit()).toBeNull();
  });

  it('keeps a limit set before the demo was ever loaded', async () => {
    await rp.setQueue(DEMO_LIMIT.queue, { concurrencyLimit: 5 }, 'alice');
    expect(await limitDemoQueue(rp)).toBe(false);
    expect(await limit()).toBe(5);
  });
});
