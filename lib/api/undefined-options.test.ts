// Every optional option of the public API takes `undefined` as "not given" — what the package's declarations
// promise a project compiled with exactOptionalPropertyTypes (`url?: string | undefined`, bin/dts-optional.mjs),
// and what `openReadpast({ url: process.env.READPAST_DATABASE_URL })` passes when the variable is unset. Each
// call below gives every optional field explicitly as undefined and must behave as if it were left out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openReadpast } from './open';

const dir = mkdtempSync(join(tmpdir(), 'readpast-undefined-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an optional option given as undefined is an option not given', () => {
  it('openReadpast, createPool, enqueue, flow, waitBatch, withTransaction, setQueue, flows', async () => {
    const rp = await openReadpast({
      url: `sqlite:${join(dir, 'db.sqlite')}`,
      handlers: { 'shop.double': async (p: { n: number }) => ({ doubled: p.n * 2 }) },
      registry: undefined,
      logger: undefined,
      handlersModule: undefined,
      migrate: undefined,
      webhooks: undefined,
      accessToken: undefined,
    });
    try {
      const undefinedTask = {
        queue: undefined,
        priority: undefined,
        runAt: undefined,
        maxAttempts: undefined,
        timeoutMs: undefined,
        dedupKey: undefined,
        concurrencyKey: undefined,
        batchId: undefined,
        stage: undefined,
        dependsOn: undefined,
        onParentFailure: undefined,
      };
      const a = await rp.enqueue(
        { command: 'shop.double', payload: { n: 21 }, ...undefinedTask },
        { caller: undefined, transaction: undefined },
      );
      const flow = await rp.flow(
        {
          name: undefined,
          onParentFailure: undefined,
          nodes: [
            { id: 'one', command: 'shop.double', payload: { n: 1 }, dependsOn: undefined, onParentFailure: undefined, queue: undefined },
            { id: 'two', command: 'shop.double', payload: { n: 2 }, dependsOn: ['one'], priority: undefined },
          ],
        },
        { caller: undefined },
      );
      const inTx = await rp.withTransaction((tx) => tx.enqueue({ command: 'shop.double', payload: { n: 3 }, ...undefinedTask }), {
        timeoutMs: undefined,
      });
      const batch = await rp.createBatch({ maxParallel: undefined });
      await rp.enqueue({ command: 'shop.double', payload: { n: 4 }, batchId: batch.id, stage: undefined });
      await rp.releaseBatch(batch.id);
      await rp.setQueue(
        'default',
        { concurrencyLimit: 8, paused: undefined, perKeyLimit: undefined, keyFrom: undefined, rateLimit: undefined },
        'ops',
      );

      const pool = rp.createPool({
        concurrency: undefined,
        leaseMs: undefined,
        heartbeatMs: undefined,
        pollMs: undefined,
        role: undefined,
        queues: undefined,
        shutdownGraceMs: undefined,
        maintenance: undefined,
        retentionMs: undefined,
        prefetch: undefined,
        logger: undefined,
      });
      await pool.start();
      // the defaults: 4 workers
      expect(pool.workerIds()).toHaveLength(4);
      const waited = await rp.waitBatch(batch.id, { stage: undefined, timeoutMs: undefined, pollMs: undefined, signal: undefined });
      expect(waited.done).toBe(true);
      const deadline = Date.now() + 30_000;
      while ((await rp.stats()).totals.succeeded < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await pool.stop();

      expect((await rp.status(a.token)).result).toEqual({ doubled: 42 });
      expect((await rp.status(inTx.token)).result).toEqual({ doubled: 6 });
      expect((await rp.getFlow(flow.flowId)).counts.succeeded).toBe(2);
      expect((await rp.queue('default')).concurrencyLimit).toBe(8);
      expect((await rp.flows({ unfinished: undefined, cursor: undefined, limit: undefined })).items).toHaveLength(1);
    } finally {
      await rp.close();
    }
  });
});
