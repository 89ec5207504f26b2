// A queue's concurrency limit holds across processes: three `readpast worker` processes with
// concurrency 8 each drain 300 demo.sleep tasks of a queue limited to 3. From ExecutionLog: never more
// than 3 attempts overlapped; after lowering the limit to 1, overlap falls to 1 once the running ones
// finish; after raising it to 5, 5 run at once. An unlimited queue keeps flowing the whole time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelOf, type Readpast } from '../../lib/api/readpast';
import { AHEAD_MAX_MS } from '../../lib/engine/pool-prefetch';
import type { AttemptView } from '../../lib/engine/types';
import { allPages, openLibrary, tempDb, waitFor, WorkerProcess, type TempDb } from './helpers';
import { intervalOf, maxOverlap } from './overlap';

const LIMITED = 'limited';
const FREE = 'free';
const N = 300;

describe('a concurrency limit across three worker processes', () => {
  let db: TempDb;
  let lib: Readpast;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    db = tempDb();
    lib = await openLibrary(db);
  });
  afterAll(async () => {
    for (const w of workers) w.kill();
    await Promise.all(workers.map((w) => w.exited));
    await lib?.close();
    db?.cleanup();
  });

  const succeeded = async (queue: string) => (await readModelOf(lib).countsByQueue()).find((c) => c.queue === queue)?.succeeded ?? 0;
  const attempts = async (queue: string): Promise<AttemptView[]> =>
    allPages((cursor) => readModelOf(lib).listAttempts({ queue, cursor, limit: 500 }));

  it('never exceeds the limit; lowering and raising it take effect live', async () => {
    await lib.setQueue(LIMITED, { concurrencyLimit: 3 }, 'test');
    await lib.enqueueMany(
      Array.from({ length: N }, (_, i) => ({ command: 'demo.sleep', payload: { ms: 40 + (i % 3) * 10 }, queue: LIMITED })),
    );
    await lib.enqueueMany(Array.from({ length: N }, () => ({ command: 'demo.sleep', payload: { ms: 400 }, queue: FREE })));
    for (let i = 0; i < 3; i++) workers.push(new WorkerProcess(['--concurrency', '8'], { env: db.env }));
    await Promise.all(workers.map((w) => w.started()));

    await waitFor(async () => (await succeeded(LIMITED)) >= 90, { timeoutMs: 60_000, what: '90 limited tasks', workers });
    // the moment the lower limit is in the file: claims that ran while this write waited for it (long on a busy
    // machine) were granted under the old limit
    await lib.setQueue(LIMITED, { concurrencyLimit: 1 }, 'test');
    const lowered = Date.now();
    const atLower = await succeeded(LIMITED);
    await waitFor(async () => (await succeeded(LIMITED)) >= atLower + 30, { timeoutMs: 60_000, what: '30 more at limit 1', workers });
    const raised = Date.now();
    await lib.setQueue(LIMITED, { concurrencyLimit: 5 }, 'test');
    await waitFor(async () => (await succeeded(LIMITED)) >= N, { timeoutMs: 90_000, what: 'all limited tasks', workers });
    await waitFor(async () => (await succeeded(FREE)) >= N, { timeoutMs: 60_000, what: 'all free tasks', workers });

    const limited = (await attempts(LIMITED)).map(intervalOf);
    expect(limited).toHaveLength(N); // one attempt each: nothing was abandoned or retried
    // before the change: at most 3 at once, and the limit was used
    expect(maxOverlap(limited, -Infinity, lowered)).toBe(3);
    // attempts granted before the limit was lowered finish untouched — those running then, and those a pool had
    // claimed ahead, which start within AHEAD_MAX_MS or are given back; after the last of them, at most 1
    const drained = Math.max(...limited.filter((i) => i.start < lowered + AHEAD_MAX_MS).map((i) => i.end));
    expect(drained).toBeGreaterThanOrEqual(lowered);
    expect(maxOverlap(limited, drained, raised)).toBe(1);
    // nothing started above the old limit in between
    expect(maxOverlap(limited, lowered, raised)).toBeLessThanOrEqual(3);
    // after raising to 5: five at once, never more
    expect(maxOverlap(limited, raised)).toBe(5);
    expect(maxOverlap(limited)).toBeLessThanOrEqual(5);

    // the unlimited queue flowed the whole time, beyond any of the limits
    const free = (await attempts(FREE)).map(intervalOf);
    expect(maxOverlap(free)).toBeGreaterThan(5);
    const freeStarts = free.map((i) => i.start);
    expect(freeStarts.some((t) => t < lowered)).toBe(true);
    expect(freeStarts.some((t) => t >= lowered && t < raised)).toBe(true);
    const changes = await readModelOf(lib).queueChanges(LIMITED, 10);
    expect(changes.map((c) => `${c.oldValue}->${c.newValue}`)).toEqual(['1->5', '3->1', 'unlimited->3']);
  }, 240_000);
});
