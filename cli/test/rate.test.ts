// A rate limit across processes: a queue limited to 20 starts per 2 s, three `readpast worker` processes × 4
// workers and more tasks (250–400 ms) than the limit lets start. Over 12 s of start times (from the ExecutionLog):
// no sliding 2 s window holds more than 20 starts, and the starts reach at least 90 % of what the limit
// allows — the pools wait for the window to open instead of spinning, and lose little time when it does.
import { describe, expect, it } from 'vitest';
import { testBed } from './bed';
import { waitFor, WorkerProcess } from './helpers';
import { maxStartsInWindow, queueAttempts, startMs } from './throttle';
import { readModelOf } from '../../lib/api/readpast';

const QUEUE = 'rated';
const LIMIT = 20;
const PERIOD_S = 2;
const SPAN_MS = 12_000;
/** what the limit lets start within SPAN_MS: LIMIT in each whole period */
const ALLOWED = LIMIT * Math.ceil(SPAN_MS / (PERIOD_S * 1000));
/** more than the span lets start, so work waits the whole span; few enough to drain soon after it */
const TASKS = ALLOWED + 30;

describe('a rate limit across three worker processes', () => {
  const bed = testBed();

  it(`at most ${LIMIT} starts in any ${PERIOD_S} s, and at least 90 % of that over ${SPAN_MS / 1000} s`, async () => {
    const { db, lib, workers } = bed;
    await lib.setQueue(QUEUE, { rateLimit: { limit: LIMIT, periodSeconds: PERIOD_S, perKey: false } }, 'test');
    expect((await lib.queue(QUEUE)).rateLimit).toEqual({ limit: LIMIT, periodSeconds: PERIOD_S, perKey: false });
    for (let p = 0; p < 3; p++) workers.push(new WorkerProcess(['--concurrency', '4', '--queues', QUEUE], db));
    const idsByProcess = await Promise.all(workers.map((w) => w.started()));
    const processOf = new Map(idsByProcess.flatMap((ids, p) => ids.map((id) => [id, p] as const)));

    await lib.enqueueMany(
      Array.from({ length: TASKS }, (_, i) => ({ command: 'demo.sleep', payload: { ms: 250 + (i % 4) * 50 }, queue: QUEUE })),
    );
    const first = await waitFor(async () => (await queueAttempts(lib, QUEUE)).map(startMs).sort((a, b) => a - b)[0], {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'the first start',
      workers,
    });
    await waitFor(
      async () => {
        const c = (await readModelOf(lib).countsByQueue()).find((x) => x.queue === QUEUE);
        return c !== undefined && c.succeeded === TASKS;
      },
      { timeoutMs: 40_000, intervalMs: 250, what: `${TASKS} tasks to drain`, workers },
    );
    const exits = await Promise.all(workers.map((w) => w.stop('SIGTERM')));
    expect(exits).toEqual(Array.from({ length: 3 }, () => ({ code: 0, signal: null })));

    const attempts = await queueAttempts(lib, QUEUE);
    expect(attempts.filter((a) => a.outcome !== 'succeeded').map((a) => `${a.token} ${a.outcome}`)).toEqual([]);
    const starts = attempts.map(startMs);
    expect(starts).toHaveLength(TASKS);

    const densest = maxStartsInWindow(starts, PERIOD_S * 1000);
    expect(densest.count, `starts in the ${PERIOD_S} s from ${new Date(densest.from).toISOString()}`).toBeLessThanOrEqual(LIMIT);
    const inSpan = starts.filter((t) => t >= first && t < first + SPAN_MS).length;
    // work waited the whole span: the limit, not the supply, set the pace
    expect(inSpan).toBeLessThan(TASKS);
    expect(inSpan, `starts in the first ${SPAN_MS} ms of ${ALLOWED} allowed`).toBeGreaterThanOrEqual(Math.ceil(0.9 * ALLOWED));
    console.info(
      `rate: densest ${PERIOD_S} s window ${densest.count} starts (limit ${LIMIT}); ${inSpan} starts in ${SPAN_MS / 1000} s of ` +
        `${ALLOWED} allowed (${Math.round((inSpan / ALLOWED) * 100)} %)`,
    );
    // the window is the database's, shared by the processes: every one of them started some (a task runs long
    // enough that one process's 4 workers cannot take a whole window's starts as it opens)
    const perProcess = [0, 1, 2].map((p) => attempts.filter((a) => processOf.get(a.workerId ?? '') === p).length);
    expect(perProcess.reduce((x, y) => x + y, 0)).toBe(attempts.length);
    for (const n of perProcess) expect(n, `starts per process: ${perProcess.join(', ')}`).toBeGreaterThan(0);
  }, 60_000);
});
