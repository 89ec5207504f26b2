// The seeds' scheduler-handle scenario with real processes: stages of 4, 2, 1, 2 and 1 demo.sleep
// tasks run by three worker processes. From ExecutionLog: no stage-k attempt started before the last
// stage-(k−1) attempt ended, and the batch's cap held. Then fairness: a batch of 2,000 and one of 20
// enqueued after it, on a pool of 4: all of the small batch starts before the large one's 200th start.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readModelOf, type Readpast } from '../../lib/api/readpast';
import type { AttemptView } from '../../lib/engine/types';
import { allPages, openLibrary, tempDb, waitFor, WorkerProcess, type TempDb } from './helpers';
import { intervalOf, maxOverlap } from './overlap';

describe('batches with ordered stages across processes', () => {
  let db: TempDb;
  let lib: Readpast;
  let workers: WorkerProcess[];

  beforeEach(async () => {
    db = tempDb();
    lib = await openLibrary(db);
    workers = [];
  });
  afterEach(async () => {
    for (const w of workers) w.kill();
    await Promise.all(workers.map((w) => w.exited));
    await lib?.close();
    db?.cleanup();
  });

  const attemptsOf = (batchId: number): Promise<AttemptView[]> =>
    allPages((cursor) => readModelOf(lib).listAttempts({ batchId, cursor, limit: 500 }));

  it('runs stages 4, 2, 1, 2, 1 in order under a cap of 3', async () => {
    const batch = await lib.createBatch({ maxParallel: 3 }, 'test');
    const sizes = [4, 2, 1, 2, 1];
    // enqueue the later stages first: order of arrival must not matter
    for (let stage = sizes.length - 1; stage >= 0; stage--) {
      await lib.enqueueMany(
        Array.from({ length: sizes[stage]! }, (_, i) => ({
          command: 'demo.sleep',
          payload: { ms: 150 + 50 * (i % 3) },
          batchId: batch.id,
          stage,
        })),
      );
    }
    await lib.releaseBatch(batch.id);
    for (let i = 0; i < 3; i++) workers.push(new WorkerProcess(['--concurrency', '4'], { env: db.env }));
    await Promise.all(workers.map((w) => w.started()));
    const waited = await lib.waitBatch(batch.id, { timeoutMs: 60_000 });
    expect(waited.done).toBe(true);
    expect(waited.batch.status).toBe('completed');
    expect(waited.tasks).toHaveLength(10);
    expect(waited.tasks.every((t) => t.status === 'succeeded')).toBe(true);

    const attempts = await attemptsOf(batch.id);
    expect(attempts).toHaveLength(10);
    for (let k = 1; k < sizes.length; k++) {
      const lastEndBefore = Math.max(...attempts.filter((a) => a.stage === k - 1).map((a) => a.endedAt!.getTime()));
      const firstStart = Math.min(...attempts.filter((a) => a.stage === k).map((a) => a.startedAt.getTime()));
      expect(firstStart, `stage ${k} started before stage ${k - 1} ended`).toBeGreaterThanOrEqual(lastEndBefore);
    }
    const all = attempts.map(intervalOf);
    expect(maxOverlap(all)).toBe(3); // the cap held, and the first stage of 4 used it
  }, 120_000);

  it('serves a small batch fairly next to a large one', async () => {
    const big = await lib.createBatch({}, 'test');
    await lib.enqueueMany(Array.from({ length: 2000 }, () => ({ command: 'demo.sleep', payload: { ms: 2 }, batchId: big.id })));
    const small = await lib.createBatch({}, 'test');
    await lib.enqueueMany(Array.from({ length: 20 }, () => ({ command: 'demo.sleep', payload: { ms: 2 }, batchId: small.id })));
    workers.push(new WorkerProcess(['--concurrency', '4'], { env: db.env }));
    await workers[0]!.started();
    const waited = await lib.waitBatch(small.id, { timeoutMs: 60_000 });
    expect(waited.done).toBe(true);
    const smallStarts = (await attemptsOf(small.id)).map((a) => a.id);
    await waitFor(async () => (await lib.batch(big.id)).totals.succeeded >= 200, {
      timeoutMs: 60_000,
      what: '200 large-batch tasks',
      workers,
    });
    const bigAttempts = (await attemptsOf(big.id)).map((a) => a.id).sort((a, b) => a - b);
    const big200th = bigAttempts[199]!;
    // attempt ids grow with their start: every small start came before the large batch's 200th
    expect(Math.max(...smallStarts)).toBeLessThan(big200th);
  }, 120_000);
});
