// The demo's staged batch and queue limit, against a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BATCH, DEMO_LIMIT, createDemoBatch, demoBatchTasks, demoWorkload, loadDemoWorkload } from './demo';
import { readModelOf, type Readpast } from './readpast';
import { openReadpast } from './open';

let dir: string;
let rp: Readpast;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-demo-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'db.sqlite')}` });
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('demo batch', () => {
  it('has stages of 4, 2, 1, 2 and 1 demo.sleep tasks of 1–4 s', () => {
    const tasks = demoBatchTasks(7);
    expect(tasks.map((t) => t.stage)).toEqual([0, 0, 0, 0, 1, 1, 2, 3, 3, 4]);
    for (const t of tasks) {
      expect(t).toMatchObject({ command: 'demo.sleep', batchId: 7, queue: DEMO_BATCH.queue });
      const { ms } = t.payload as { ms: number };
      expect(ms).toBeGreaterThanOrEqual(1000);
      expect(ms).toBeLessThanOrEqual(4000);
    }
  });

  it('is created with a cap of 3, filled and released', async () => {
    const { id, count } = await createDemoBatch(rp, { caller: 'dashboard' });
    expect(count).toBe(10);
    const b = await rp.batch(id);
    expect(b).toMatchObject({ maxParallel: 3, status: 'released', caller: 'dashboard', activeStage: 0 });
    expect(b.stages.map((s) => s.total)).toEqual([...DEMO_BATCH.stages]);
  });
});

describe('loadDemoWorkload', () => {
  it('also creates a staged batch and limits one queue, recorded as made by demo', async () => {
    const count = await loadDemoWorkload(rp, { caller: 'dashboard' });
    expect(count).toBe(demoWorkload().length + 10);

    const { items } = await readModelOf(rp).listBatches({});
    expect(items).toHaveLength(1);
    expect(items[0]!.stages.map((s) => s.total)).toEqual([4, 2, 1, 2, 1]);

    const { queues, changes } = await rp.queues();
    expect(queues.find((q) => q.name === DEMO_LIMIT.queue)?.concurrencyLimit).toBe(2);
    expect(changes).toEqual([
      expect.objectContaining({
        queue: DEMO_LIMIT.queue,
        field: 'concurrencyLimit',
        oldValue: 'unlimited',
        newValue: '2',
        changedBy: 'demo',
      }),
    ]);

    // loading it again adds work but records no change that did not happen
    await loadDemoWorkload(rp);
    expect((await rp.queues()).changes).toHaveLength(1);
    expect((await readModelOf(rp).listBatches({})).items).toHaveLength(2);
  });
});
