// The claim model's seeds stop their store when their time is up (claim-model.ts stoppable): checked
// here on a real SQLite store, since a seed that times out is not something the suite can watch from inside.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../sqlite/store';
import { stoppable } from './claim-model';

let dir: string;
let store: Awaited<ReturnType<typeof openSqliteStore>>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpast-stoppable-'));
  store = await openSqliteStore(join(dir, 'stop.db'));
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a claim-model seed out of time stops its store', () => {
  it('passes every port call through until stopped, then refuses each one and reaches the store no more', async () => {
    const stop = new AbortController();
    const s = stoppable(store, stop.signal);
    const slot = { workerId: 'w1', session: (await s.worker.registerWorker({ workerId: 'w1', host: 'h', pid: 1, role: 'r' })).session };
    const { token } = await s.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: 1 });
    expect((await s.reads.getTask(token))?.status).toBe('pending');
    expect(s.sqlServer).toBeNull();

    stop.abort('seed 7 out of time after 55000 ms');
    await expect(async () => s.worker.claim([slot], { leaseMs: 60_000 })).rejects.toThrow(
      /the store was stopped \(seed 7 out of time after 55000 ms\): worker\.claim refused/,
    );
    await expect(async () => s.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: 2 })).rejects.toThrow(
      /commands\.enqueue/,
    );
    // nothing reached the store: the task is still pending, and it is the only one
    expect((await store.reads.getTask(token))?.status).toBe('pending');
    expect((await store.reads.countsByQueue()).map((c) => c.pending)).toEqual([1]);
  });
});
