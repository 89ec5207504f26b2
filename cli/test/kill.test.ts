// Crash recovery with real processes: SIGKILL a `readpast worker` mid-task; a second worker rescues
// the tasks once their leases expire. Every task ends succeeded, the ExecutionLog keeps the
// abandoned attempts, nothing is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelOf, type Readpast } from '../../lib/api/readpast';
import { attemptProblems, limited, openLibrary, statusOf, tempDb, waitFor, WorkerProcess, type TempDb } from './helpers';

const TASKS = 6;
const SLEEP_MS = 4000;
const CONCURRENCY = 4;

describe('a worker killed with SIGKILL', () => {
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

  it('loses nothing: a second worker rescues its tasks after the lease expires', async () => {
    const args = ['--concurrency', String(CONCURRENCY), '--lease-seconds', '2'];
    const first = new WorkerProcess(args, db);
    workers.push(first);
    const firstIds = await first.started();

    const enqueued = await lib.enqueueMany(
      Array.from({ length: TASKS }, (_, i) => ({ command: 'demo.sleep', payload: { ms: SLEEP_MS, i }, queue: 'kill' })),
    );
    const tokens = enqueued.map((e) => e.token);
    expect(new Set(tokens).size).toBe(TASKS);

    // the first worker fills all its slots
    await waitFor(
      async () => {
        const running = (await readModelOf(lib).listRunning()).filter((r) => firstIds.includes(r.workerId));
        return running.length === CONCURRENCY;
      },
      { timeoutMs: 30_000, what: `${CONCURRENCY} tasks running on the first worker`, workers: [first] },
    );

    const exit = await first.stop('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');

    // frozen at the moment of the kill: what the dead worker was running stays visible as running
    const inFlight = await readModelOf(lib).listRunning();
    const killedTokens = new Set(inFlight.map((r) => r.token));
    expect(inFlight.every((r) => firstIds.includes(r.workerId))).toBe(true);
    expect(killedTokens.size).toBe(CONCURRENCY);
    const mid = await readModelOf(lib).countsByQueue();
    const q = mid.find((c) => c.queue === 'kill');
    expect(q && q.pending + q.running + q.succeeded).toBe(TASKS);

    const second = new WorkerProcess(args, db);
    workers.push(second);
    const secondIds = await second.started();

    await waitFor(
      async () => {
        const c = (await readModelOf(lib).countsByQueue()).find((x) => x.queue === 'kill');
        return c !== undefined && c.pending === 0 && c.running === 0;
      },
      { timeoutMs: 50_000, intervalMs: 250, what: 'every task to finish after the rescue', workers: [second] },
    );

    const statuses = await limited(tokens, 3, (t) => statusOf(t, db));
    const problems: string[] = [];
    for (const s of statuses) {
      expect(s.status, `${s.token}: ${JSON.stringify(s.history)}`).toBe('succeeded');
      expect(s.attempts).toBe(s.history.length);
      problems.push(...attemptProblems(s.token, s.history));
      const outcomes = [...s.history].sort((a, b) => a.attempt - b.attempt).map((h) => h.outcome);
      // every attempt but the last was abandoned; the last succeeded
      expect(outcomes.at(-1), s.token).toBe('succeeded');
      expect(
        outcomes.slice(0, -1).every((o) => o === 'abandoned'),
        `${s.token}: ${outcomes.join(',')}`,
      ).toBe(true);
      const abandoned = s.history.filter((h) => h.outcome === 'abandoned');
      if (killedTokens.has(s.token)) {
        expect(abandoned.length, `${s.token} was running on the killed worker`).toBeGreaterThanOrEqual(1);
        expect(firstIds).toContain(abandoned[0]!.workerId);
        expect(abandoned[0]!.endedAt).not.toBeNull();
        expect(abandoned[0]!.errorMessage ?? '').toMatch(/lease/i);
        expect(secondIds).toContain(s.history.find((h) => h.outcome === 'succeeded')!.workerId);
      } else {
        expect(abandoned, `${s.token} never ran on the killed worker`).toEqual([]);
      }
    }
    expect(problems).toEqual([]);

    const counts = (await readModelOf(lib).countsByQueue()).find((x) => x.queue === 'kill');
    expect(counts).toMatchObject({ pending: 0, running: 0, succeeded: TASKS, dead: 0, cancelled: 0 });
    expect(await readModelOf(lib).listRunning()).toEqual([]);

    expect(await second.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});
