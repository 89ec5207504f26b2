// `npm run stress:mssql`: the process-level runs the SQLite tests make (cli/test/multi, kill, limits,
// stages), against the SQL Server at MSSQL_URL, with real `readpast worker` processes:
//   1. three worker processes drain STRESS_TASKS tasks: each succeeds exactly once, no overlapping attempts;
//   2. a worker is killed with SIGKILL mid-task: a second one rescues its tasks once their lease expires;
//   3. a queue limited to 3 across three processes (then raised to 5) is never exceeded, from ExecutionLog;
//   4. a batch's stages 4, 2, 1, 2, 1 under a cap of 3 run in order.
// Then what the workers' logs say of heartbeats (the slowest, and the cause of any slower than half the lease)
// and each lease lost while its worker was alive, with that worker's last heartbeat (bin/stress/checks.ts).
// It prints what held (✓) and what did not (✗), and exits 1 when anything did not, 2 without MSSQL_URL.
// Use a database of its own: each run adds tasks in queues named after the run (stress-<run>-…),
// which are left in place to look at afterwards (they are pruned with the rest after 7 days).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';
import { readModelOf, type Readpast } from '../lib/api/readpast';
import type { AttemptView, TaskView } from '../lib/engine/types';
import { allPages, waitFor, WorkerProcess } from '../cli/test/helpers';
import {
  drainVerdict,
  executionProblems,
  formatVerdict,
  killVerdict,
  leaseReport,
  limitVerdict,
  parseExecutions,
  stagesVerdict,
  type Verdict,
} from './stress/checks';

const URL = process.env.MSSQL_URL;
const TASKS = Number(process.env.STRESS_TASKS ?? 600);
const LIMITED_TASKS = Number(process.env.STRESS_LIMITED_TASKS ?? 150);
/** how long a run may take before it counts as stuck (remote servers are slower than a local file) */
const RUN_MS = Number(process.env.STRESS_RUN_SECONDS ?? 300) * 1000;
const RUN = `stress-${Date.now().toString(36)}`;

/** A handler that appends one line per execution (token, attempt, worker) to a shared file. */
const RECORDER = `
import { appendFileSync } from 'node:fs';
const file = process.env.READPAST_TEST_RECORD;
export function register(registry) {
  registry.register('stress.record', async (payload, ctx) => {
    if (payload.ms > 0) await new Promise((resolve) => setTimeout(resolve, payload.ms));
    appendFileSync(file, ctx.token + ' ' + ctx.attempt + ' ' + ctx.workerId + '\\n');
    return { n: payload.n };
  });
}
`;

interface Ctx {
  lib: Readpast;
  dir: string;
  env: NodeJS.ProcessEnv;
  workers: WorkerProcess[];
}

const log = (line: string) => process.stdout.write(`${line}\n`);

function start(ctx: Ctx, args: string[], env: NodeJS.ProcessEnv = ctx.env): WorkerProcess {
  const w = new WorkerProcess(args, { env, cwd: ctx.dir });
  ctx.workers.push(w);
  return w;
}

async function stopAll(ws: WorkerProcess[]): Promise<void> {
  await Promise.all(ws.map((w) => w.stop('SIGTERM', 60_000).catch(() => w.kill())));
}

const attemptsOf = (lib: Readpast, filter: { queue?: string; batchId?: number }) =>
  allPages<AttemptView>((cursor) => readModelOf(lib).listAttempts({ ...filter, cursor, limit: 500 }));
const tasksOf = (lib: Readpast, queue: string) => allPages<TaskView>((cursor) => readModelOf(lib).listTasks({ queue, cursor, limit: 500 }));

async function drained(ctx: Ctx, queue: string, workers: WorkerProcess[], what: string): Promise<void> {
  await waitFor(
    async () => {
      const c = (await readModelOf(ctx.lib).countsByQueue()).find((x) => x.queue === queue);
      return c !== undefined && c.pending === 0 && c.running === 0;
    },
    { timeoutMs: RUN_MS, intervalMs: 500, what, workers },
  );
}

async function multi(ctx: Ctx): Promise<Verdict> {
  const queue = `${RUN}-multi`;
  const record = join(ctx.dir, 'executions.log');
  writeFileSync(record, '');
  const env = { ...ctx.env, READPAST_TEST_RECORD: record };
  const ws = [0, 1, 2].map(() => start(ctx, ['--concurrency', '4', '--handlers', './record.mjs', '--queues', queue], env));
  const ids = await Promise.all(ws.map((w) => w.started(120_000)));
  const processOf = new Map(ids.flatMap((list, p) => list.map((id) => [id, p] as const)));
  const tokens: string[] = [];
  for (let i = 0; i < TASKS; i += 500) {
    const chunk = Array.from({ length: Math.min(500, TASKS - i) }, (_, j) => ({
      command: 'stress.record',
      payload: { n: i + j, ms: (i + j) % 6 },
      queue,
    }));
    tokens.push(...(await ctx.lib.enqueueMany(chunk)).map((r) => r.token));
  }
  await drained(ctx, queue, ws, `${TASKS} tasks to drain`);
  await stopAll(ws);
  const attempts = await attemptsOf(ctx.lib, { queue });
  const v = drainVerdict('three processes drain', tokens, await tasksOf(ctx.lib, queue), attempts, processOf, 3);
  v.problems.push(...executionProblems(parseExecutions(readFileSync(record, 'utf8')), attempts));
  if (v.problems.length) v.held = [];
  return v;
}

async function kill(ctx: Ctx): Promise<Verdict> {
  const queue = `${RUN}-kill`;
  const args = ['--concurrency', '4', '--lease-seconds', '5', '--queues', queue];
  const first = start(ctx, args);
  const firstIds = await first.started(120_000);
  const enqueued = await ctx.lib.enqueueMany(
    Array.from({ length: 6 }, (_, i) => ({ command: 'demo.sleep', payload: { ms: 4000, i }, queue })),
  );
  await waitFor(async () => (await readModelOf(ctx.lib).listRunning()).filter((r) => firstIds.includes(r.workerId)).length === 4, {
    timeoutMs: 120_000,
    what: '4 tasks running on the first worker',
    workers: [first],
  });
  await first.stop('SIGKILL');
  const killed = new Set((await readModelOf(ctx.lib).listRunning()).filter((r) => firstIds.includes(r.workerId)).map((r) => r.token));
  const second = start(ctx, args);
  const secondIds = await second.started(120_000);
  await drained(ctx, queue, [second], 'every task to finish after the rescue');
  await stopAll([second]);
  const tasks = await tasksOf(ctx.lib, queue);
  const v = killVerdict('kill -9 mid-task', tasks, await attemptsOf(ctx.lib, { queue }), killed, firstIds, secondIds);
  if (tasks.length !== enqueued.length) v.problems.push(`${tasks.length} tasks for ${enqueued.length} enqueued`);
  return v;
}

async function limit(ctx: Ctx): Promise<Verdict> {
  const queue = `${RUN}-limited`;
  await ctx.lib.setQueue(queue, { concurrencyLimit: 3 }, 'stress:mssql');
  const half = Math.floor(LIMITED_TASKS / 2);
  await ctx.lib.enqueueMany(
    Array.from({ length: LIMITED_TASKS }, (_, i) => ({ command: 'demo.sleep', payload: { ms: 80 + (i % 3) * 20 }, queue })),
  );
  const ws = [0, 1, 2].map(() => start(ctx, ['--concurrency', '8', '--queues', queue]));
  await Promise.all(ws.map((w) => w.started(120_000)));
  const succeeded = async () => (await readModelOf(ctx.lib).countsByQueue()).find((c) => c.queue === queue)?.succeeded ?? 0;
  await waitFor(async () => (await succeeded()) >= half, { timeoutMs: RUN_MS, what: `${half} limited tasks`, workers: ws });
  await ctx.lib.setQueue(queue, { concurrencyLimit: 5 }, 'stress:mssql');
  // when the limit was raised, by the server's clock (as ExecutionLog's times are), not this machine's
  const raised = (await readModelOf(ctx.lib).queueChanges(queue, 1))[0]?.at.getTime() ?? Date.now();
  await drained(ctx, queue, ws, 'every limited task');
  await stopAll(ws);
  return limitVerdict('a limit across three processes', await attemptsOf(ctx.lib, { queue }), 3, 5, raised);
}

async function stages(ctx: Ctx): Promise<Verdict> {
  const queue = `${RUN}-stages`;
  const sizes = [4, 2, 1, 2, 1];
  const batch = await ctx.lib.createBatch({ maxParallel: 3 }, 'stress:mssql');
  for (let stage = sizes.length - 1; stage >= 0; stage--) {
    await ctx.lib.enqueueMany(
      Array.from({ length: sizes[stage]! }, (_, i) => ({
        command: 'demo.sleep',
        payload: { ms: 150 + 50 * (i % 3) },
        queue,
        batchId: batch.id,
        stage,
      })),
    );
  }
  await ctx.lib.releaseBatch(batch.id);
  const ws = [0, 1, 2].map(() => start(ctx, ['--concurrency', '4', '--queues', queue]));
  await Promise.all(ws.map((w) => w.started(120_000)));
  const waited = await ctx.lib.waitBatch(batch.id, { timeoutMs: RUN_MS });
  await stopAll(ws);
  const v = stagesVerdict('stages in order', await attemptsOf(ctx.lib, { batchId: batch.id }), sizes, 3);
  if (!waited.done || waited.batch.status !== 'completed') v.problems.unshift(`batch ${batch.id} ended ${waited.batch.status}`);
  if (v.problems.length) v.held = [];
  return v;
}

async function main(): Promise<number> {
  if (!URL) {
    process.stderr.write('stress:mssql needs a SQL Server: set MSSQL_URL=mssql://user:pass@host:1433/db (a database of its own)\n');
    return 2;
  }
  const dir = mkdtempSync(join(tmpdir(), 'readpast-stress-'));
  writeFileSync(join(dir, 'record.mjs'), RECORDER);
  const env = { ...process.env, READPAST_DATABASE_URL: URL, READPAST_LOG_LEVEL: 'info' };
  // migrates (and refuses a server readpast cannot run on, Babelfish included, with one message)
  const lib = await openReadpast({ url: URL, migrate: true });
  const ctx: Ctx = { lib, dir, env, workers: [] };
  const stop = () => {
    for (const w of ctx.workers) w.kill();
    process.exit(130);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  log(`readpast stress:mssql on ${lib.description}, run ${RUN}`);
  const verdicts: Verdict[] = [];
  try {
    for (const [name, run] of [
      ['three processes drain', multi],
      ['kill -9 mid-task', kill],
      ['a limit across three processes', limit],
      ['stages in order', stages],
    ] as const) {
      const t0 = Date.now();
      let v: Verdict;
      try {
        v = await run(ctx);
      } catch (err) {
        v = { name, held: [], problems: [(err as Error).message.split('\n').slice(0, 12).join('\n    ')] };
        for (const w of ctx.workers) w.kill();
      }
      verdicts.push(v);
      for (const line of formatVerdict(v)) log(line);
      log(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    }
    // where the heartbeats' time went, and every lease lost while its worker lived
    const abandoned = (
      await allPages<AttemptView>((cursor) => readModelOf(lib).listAttempts({ outcome: 'abandoned', cursor, limit: 500 }))
    ).filter((a) => a.queue.startsWith(`${RUN}-`));
    for (const line of leaseReport(
      ctx.workers.flatMap((w) => w.logs()),
      abandoned,
    ))
      log(line);
  } finally {
    for (const w of ctx.workers) w.kill();
    await Promise.all(ctx.workers.map((w) => w.exited));
    await lib.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const failed = verdicts.filter((v) => v.problems.length);
  log(failed.length ? `NOT OK: ${failed.map((v) => v.name).join(', ')}` : `OK: all ${verdicts.length} runs held`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`stress:mssql: ${(err as Error).message ?? String(err)}\n`);
    process.exit(1);
  },
);
