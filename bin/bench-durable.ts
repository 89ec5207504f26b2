// Part of `npm run bench` (alone: BENCH_ONLY=durable npm run bench): what a durable step costs. On one SQLite file,
// with a pool of 4 (the default) and the same options each time, drained in turns:
//  - plain: trivial tasks (a no-op handler) — tasks/s;
//  - steps: tasks of 100 no-op `ctx.step`s each, several at once so the 4 slots are used — steps/s;
//  - transactional: tasks of 100 `ctx.transaction`s, each one INSERT into a table of the bench's own — steps/s.
// stepsRatio = steps/s ÷ plain tasks/s (target ≥ 1: a step costs no more than a task), each side the best of three
// rounds taken in turns, so neither depends on the machine or on a busy moment of it. The CPU time of this process
// per task and per step is printed beside it (not judged: what a machine shared with other work hardly moves).
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';
import type { Readpast } from '../lib/api/readpast';
import { drainRate } from './bench-drain';

export const STEPS_TARGET = 1;
const STEPS = 100;
const POOL = 4;
const ROUNDS = 3;
/** tasks of 100 steps per round (several per slot: the 4 slots stay busy to the end) */
const STEP_TASKS = Number(process.env.BENCH_DURABLE_TASKS ?? 120);
/** plain tasks per round: as many as the steps of a round */
const PLAIN_TASKS = STEP_TASKS * STEPS;

export interface DurableBench {
  pool: number;
  stepsPerTask: number;
  stepTasks: number;
  plainTasksPerSec: number;
  stepsPerSec: number;
  transactionStepsPerSec: number;
  /** stepsPerSec / plainTasksPerSec (target ≥ stepsTarget) */
  stepsRatio: number;
  /** transactionStepsPerSec / plainTasksPerSec (printed, not judged) */
  transactionRatio: number;
  /** CPU time per plain task / per step (printed, not judged) */
  stepsCpuRatio: number;
  stepsTarget: number;
}

function register(rp: Readpast): void {
  rp.registry.register('bench.noop', () => null);
  rp.registry.register('bench.steps', async (_payload, ctx) => {
    for (let i = 0; i < STEPS; i++) await ctx.step(`s${i}`, () => null);
    return null;
  });
  rp.registry.register('bench.txsteps', async (_payload, ctx) => {
    for (let i = 0; i < STEPS; i++) {
      await ctx.transaction(`t${i}`, (tx) => tx.execute('INSERT INTO bench_rows (task, i) VALUES (@task, @i)', { task: ctx.taskId, i }));
    }
    return null;
  });
}

async function enqueue(rp: Readpast, command: string, queue: string, n: number): Promise<void> {
  const chunk = 10_000;
  for (let done = 0; done < n; done += chunk) {
    await rp.enqueueMany(Array.from({ length: Math.min(chunk, n - done) }, () => ({ command, queue })));
  }
}

/** A drain's rate (tasks per second) and this process's CPU time per task (µs). */
interface Drained {
  perSec: number;
  cpuUs: number;
}

/** Drain `n` tasks of `command` enqueued into a queue of their own. */
async function drain(rp: Readpast, command: string, queue: string, n: number): Promise<Drained> {
  await enqueue(rp, command, queue, n);
  const cpu0 = process.cpuUsage();
  const perSec = await drainRate(rp, queue, n, POOL);
  const cpu = process.cpuUsage(cpu0);
  return { perSec, cpuUs: (cpu.user + cpu.system) / n };
}

export async function benchDurable(dir: string, log: (...a: unknown[]) => void): Promise<DurableBench> {
  const file = join(mkdtempSync(join(dir, 'durable-')), 'db.sqlite');
  const rp = await openReadpast({ url: `sqlite:${file}` });
  register(rp);
  // the transactional steps' own table, next to readpast's
  await rp.withTransaction((tx) =>
    tx.execute('CREATE TABLE bench_rows (id INTEGER PRIMARY KEY, task INTEGER NOT NULL, i INTEGER NOT NULL)'),
  );
  const rows = async () => (await rp.withTransaction((tx) => tx.execute<{ n: number }>('SELECT COUNT(*) AS n FROM bench_rows'))).rows[0]!.n;
  log(`durable: pool of ${POOL}; ${STEP_TASKS} tasks × ${STEPS} steps against ${PLAIN_TASKS} plain tasks, best of ${ROUNDS} rounds`);
  try {
    // warm-up of each path (throwaway queues)
    await drain(rp, 'bench.noop', 'warm-plain', 2000);
    await drain(rp, 'bench.steps', 'warm-steps', 8);
    await drain(rp, 'bench.txsteps', 'warm-tx', 8);
    let plain = 0;
    let steps = 0;
    let txSteps = 0;
    // CPU time per plain task and per step, the least of the rounds
    let plainCpu = Infinity;
    let stepCpu = Infinity;
    for (let round = 1; round <= ROUNDS; round++) {
      const p = await drain(rp, 'bench.noop', `plain-${round}`, PLAIN_TASKS);
      const s = await drain(rp, 'bench.steps', `steps-${round}`, STEP_TASKS);
      const before = await rows();
      const t = (await drain(rp, 'bench.txsteps', `tx-${round}`, STEP_TASKS)).perSec * STEPS;
      const inserted = (await rows()) - before;
      if (inserted !== STEP_TASKS * STEPS) throw new Error(`bench: ${inserted} rows inserted, not ${STEP_TASKS * STEPS}`);
      const perStep = s.perSec * STEPS;
      const rates = `plain ${Math.round(p.perSec)} tasks/s, steps ${Math.round(perStep)}/s, transactional steps ${Math.round(t)}/s`;
      log(`durable: round ${round}: ${rates}`);
      plain = Math.max(plain, p.perSec);
      steps = Math.max(steps, perStep);
      txSteps = Math.max(txSteps, t);
      plainCpu = Math.min(plainCpu, p.cpuUs);
      stepCpu = Math.min(stepCpu, s.cpuUs / STEPS);
    }
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    const stepsRatio = r3(steps / plain);
    const transactionRatio = r3(txSteps / plain);
    const stepsCpuRatio = r3(plainCpu / stepCpu);
    const verdict = stepsRatio >= STEPS_TARGET ? 'meets' : 'MISSES';
    log(`durable: plain ${Math.round(plain)} tasks/s, ${Math.round(steps)} steps/s, ${Math.round(txSteps)} transactional steps/s`);
    log(`durable: stepsRatio ${stepsRatio} (${verdict} the target ≥ ${STEPS_TARGET}); transactional / plain ${transactionRatio}`);
    log(
      `durable: CPU ${Math.round(plainCpu)} µs per plain task, ${Math.round(stepCpu)} µs per step: ratio ${stepsCpuRatio} ` +
        "(not judged: what the machine's other load hardly moves)",
    );
    return {
      pool: POOL,
      stepsPerTask: STEPS,
      stepTasks: STEP_TASKS,
      plainTasksPerSec: Math.round(plain),
      stepsPerSec: Math.round(steps),
      transactionStepsPerSec: Math.round(txSteps),
      stepsRatio,
      transactionRatio,
      stepsCpuRatio,
      stepsTarget: STEPS_TARGET,
    };
  } finally {
    await rp.close();
  }
}
