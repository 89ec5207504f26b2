// Fair turns across keys, as issue 24 measures them: key A's 10,000 tasks enqueued first, then 10 tasks
// each of keys B…K, per-key limit 1, one `readpast worker` process of 4 workers. Keys are served in turn
// (least recently served first), so a key with a long backlog delays another by one turn at most: every
// task of B…K starts (ExecutionLog start times) before the 40th task of A.
import { describe, expect, it } from 'vitest';
import { testBed } from './bed';
import { waitFor, WorkerProcess } from './helpers';
import { keyedAttempts, startMs, type KeyedAttempt } from './throttle';
import { readModelOf } from '../../lib/api/readpast';

const QUEUE = 'fair';
const BIG = 10_000;
const SMALL_KEYS = 'BCDEFGHIJK'.split('');
const SMALL = 10;
/** the bound: every task of B…K starts before A's 40th */
const BEFORE_A = 40;

describe('fair turns across keys', () => {
  const bed = testBed();

  it(`a key with ${BIG} pending tasks does not hold back keys with ${SMALL}`, async () => {
    const { db, lib, workers } = bed;
    await lib.setQueue(QUEUE, { perKeyLimit: 1 }, 'test');
    const task = (k: string, i: number) => ({ command: 'demo.sleep', payload: { ms: 10 + (i % 3) * 10 }, queue: QUEUE, concurrencyKey: k });
    await lib.enqueueMany(Array.from({ length: BIG }, (_, i) => task('A', i)));
    for (const k of SMALL_KEYS) await lib.enqueueMany(Array.from({ length: SMALL }, (_, i) => task(k, i)));

    workers.push(new WorkerProcess(['--concurrency', '4', '--queues', QUEUE], db));
    await workers[0]!.started();
    const succeeded = async (k: string) =>
      (await readModelOf(lib).listTasks({ queue: QUEUE, concurrencyKey: k, status: 'succeeded', limit: 100 })).items.length;
    // until every small key is done and A has run past the bound
    await waitFor(
      async () => {
        for (const k of SMALL_KEYS) if ((await succeeded(k)) < SMALL) return false;
        return (await succeeded('A')) >= BEFORE_A;
      },
      { timeoutMs: 45_000, intervalMs: 200, what: `keys B…K done and ${BEFORE_A} tasks of A`, workers },
    );
    expect(await workers[0]!.stop('SIGTERM')).toEqual({ code: 0, signal: null });

    // A's tasks claimed ahead and never started were given back at the stop; everything else ran and succeeded
    const all = await keyedAttempts(lib, QUEUE);
    const givenBack = (a: KeyedAttempt) =>
      a.key === 'A' && a.outcome === 'abandoned' && /before the prefetched task started/.test(a.errorMessage ?? '');
    expect(all.filter((a) => a.outcome !== 'succeeded' && !givenBack(a)).map((a) => `${a.token} ${a.outcome}`)).toEqual([]);
    const attempts = all.filter((a) => !givenBack(a));
    const small = attempts.filter((a) => a.key !== 'A');
    expect(small).toHaveLength(SMALL_KEYS.length * SMALL);
    const aStarts = attempts.filter((a) => a.key === 'A').map(startMs);
    expect(aStarts.length).toBeGreaterThanOrEqual(BEFORE_A);
    const lastSmall = Math.max(...small.map(startMs));
    const aBefore = aStarts.filter((t) => t <= lastSmall).length;
    console.info(`fairness: the last task of B…K started after ${aBefore} tasks of A (bound: fewer than ${BEFORE_A})`);
    expect(lastSmall, `the last start of B…K came after ${aBefore} starts of A`).toBeLessThan(aStarts[BEFORE_A - 1]!);
  }, 60_000);
});
