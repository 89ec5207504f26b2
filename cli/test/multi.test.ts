// Three `readpast worker` processes drain 3,000 tasks from one SQLite file: each task succeeds exactly
// once (apart from rescued attempts) and no task ever has two overlapping attempts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelOf, type Readpast } from '../../lib/api/readpast';
import type { AttemptView, TaskView } from '../../lib/engine/types';
import { allPages, attemptProblems, openLibrary, tempDb, waitFor, WorkerProcess, type TempDb } from './helpers';

const TASKS = 3000;
const PROCESSES = 3;
const QUEUE = 'multi';

/** A handler that appends one line per execution (token, attempt, worker) to a shared file. */
const RECORDER = `
import { appendFileSync } from 'node:fs';
const file = process.env.READPAST_TEST_RECORD;
export function register(registry) {
  registry.register('test.record', async (payload, ctx) => {
    if (payload.ms > 0) await new Promise((resolve) => setTimeout(resolve, payload.ms));
    appendFileSync(file, ctx.token + ' ' + ctx.attempt + ' ' + ctx.workerId + '\\n');
    return { n: payload.n };
  });
}
`;

describe('three worker processes on one SQLite file', () => {
  let db: TempDb;
  let lib: Readpast;
  let recordFile: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    db = tempDb();
    recordFile = join(db.dir, 'executions.log');
    writeFileSync(recordFile, '');
    writeFileSync(join(db.dir, 'record.mjs'), RECORDER);
    lib = await openLibrary(db);
  });
  afterAll(async () => {
    for (const w of workers) w.kill();
    await Promise.all(workers.map((w) => w.exited));
    await lib?.close();
    db?.cleanup();
  });

  it(`drain ${TASKS} tasks: each succeeds exactly once, attempts never overlap`, async () => {
    const env = { ...db.env, READPAST_TEST_RECORD: recordFile };
    for (let i = 0; i < PROCESSES; i++) {
      workers.push(new WorkerProcess(['--concurrency', '4', '--handlers', './record.mjs', '--queues', QUEUE], { env, cwd: db.dir }));
    }
    const idsByProcess = await Promise.all(workers.map((w) => w.started()));
    const processOf = new Map(idsByProcess.flatMap((ids, p) => ids.map((id) => [id, p] as const)));

    // bulk enqueue through the library, in a few transactions, while the workers are already polling
    const tokens: string[] = [];
    for (let chunk = 0; chunk < 3; chunk++) {
      const batch = Array.from({ length: TASKS / 3 }, (_, i) => {
        const n = chunk * (TASKS / 3) + i;
        return { command: 'test.record', payload: { n, ms: n % 6 }, queue: QUEUE };
      });
      tokens.push(...(await lib.enqueueMany(batch)).map((r) => r.token));
    }
    expect(new Set(tokens).size).toBe(TASKS);

    await waitFor(
      async () => {
        const c = (await readModelOf(lib).countsByQueue()).find((x) => x.queue === QUEUE);
        return c !== undefined && c.pending === 0 && c.running === 0;
      },
      { timeoutMs: 55_000, intervalMs: 250, what: `${TASKS} tasks to drain`, workers },
    );

    const exits = await Promise.all(workers.map((w) => w.stop('SIGTERM')));
    expect(exits).toEqual(Array.from({ length: PROCESSES }, () => ({ code: 0, signal: null })));

    // ---- tasks: all succeeded, none lost, none extra
    const tasks = await allPages<TaskView>((cursor) => readModelOf(lib).listTasks({ queue: QUEUE, cursor, limit: 500 }));
    expect(tasks).toHaveLength(TASKS);
    expect(new Set(tasks.map((t) => t.token))).toEqual(new Set(tokens));
    const notSucceeded = tasks.filter((t) => t.status !== 'succeeded');
    expect(notSucceeded.map((t) => `${t.token} ${t.status}`)).toEqual([]);
    expect((await readModelOf(lib).countsByQueue()).find((x) => x.queue === QUEUE)).toMatchObject({
      pending: 0,
      running: 0,
      succeeded: TASKS,
      dead: 0,
      cancelled: 0,
    });

    // ---- ExecutionLog: exactly one succeeded attempt per task, others only abandoned, never overlapping
    const attempts = await allPages<AttemptView>((cursor) => readModelOf(lib).listAttempts({ queue: QUEUE, cursor, limit: 500 }));
    const byToken = new Map<string, AttemptView[]>();
    for (const a of attempts) byToken.set(a.token, [...(byToken.get(a.token) ?? []), a]);
    expect(byToken.size).toBe(TASKS);
    const problems: string[] = [];
    let rescued = 0;
    for (const t of tasks) {
      const history = byToken.get(t.token) ?? [];
      const succeeded = history.filter((a) => a.outcome === 'succeeded');
      const other = history.filter((a) => a.outcome !== 'succeeded');
      if (succeeded.length !== 1) problems.push(`${t.token}: ${succeeded.length} succeeded attempts`);
      for (const a of other) if (a.outcome !== 'abandoned') problems.push(`${t.token}: attempt ${a.attempt} ${a.outcome}`);
      if (t.attempts !== history.length) problems.push(`${t.token}: attempts ${t.attempts} but ${history.length} log rows`);
      rescued += other.length;
      problems.push(...attemptProblems(t.token, history));
      for (const a of history) if (!processOf.has(a.workerId ?? '')) problems.push(`${t.token}: unknown worker ${a.workerId}`);
    }
    expect(problems.slice(0, 20)).toEqual([]);

    // ---- what the handlers actually did agrees with the log
    const executions = new Map<string, string[]>();
    for (const line of readFileSync(recordFile, 'utf8').split('\n').filter(Boolean)) {
      const [token, attempt, workerId] = line.split(' ');
      executions.set(token!, [...(executions.get(token!) ?? []), `${attempt} ${workerId}`]);
    }
    expect(executions.size).toBe(TASKS);
    for (const t of tasks) {
      const history = byToken.get(t.token)!;
      const ran = executions.get(t.token) ?? [];
      const ok = history.find((a) => a.outcome === 'succeeded')!;
      // the succeeded attempt ran, on the worker the log names; rescued attempts may or may not have run
      if (!ran.includes(`${ok.attempt} ${ok.workerId}`))
        problems.push(`${t.token}: no execution of attempt ${ok.attempt} on ${ok.workerId}`);
      if (ran.length > history.length) problems.push(`${t.token}: ran ${ran.length} times for ${history.length} attempts`);
      if (history.length === 1 && ran.length !== 1) problems.push(`${t.token}: ran ${ran.length} times`);
    }
    expect(problems.slice(0, 20)).toEqual([]);

    // every process took part
    const perProcess = new Array<number>(PROCESSES).fill(0);
    for (const a of attempts) if (a.outcome === 'succeeded') perProcess[processOf.get(a.workerId!)!]! += 1;
    expect(perProcess.reduce((x, y) => x + y, 0)).toBe(TASKS);
    for (const n of perProcess) expect(n, `succeeded attempts per process: ${perProcess.join(', ')}`).toBeGreaterThan(0);
    // with leases of 30 s and a healthy heartbeat, a rescue here would itself be suspicious
    expect(rescued, 'rescued attempts').toBe(0);
  });
});
