// `npm run bench`: throughput, latency and bulk-enqueue figures of the embedded SQLite store, next to
// this machine's ceiling (a bare better-sqlite3 claim+complete loop over a plain table, same batch
// size, same file settings), the cost of concurrency keys (bin/bench-keys.ts) and of dependencies
// (bin/bench-flows.ts), what an idle pool costs each store (bin/bench-idle.ts), the cost of OpenTelemetry
// (bin/bench-tracing.ts), where the time of an enqueue goes (bin/bench-enqueue.ts) and what a durable step costs
// (bin/bench-durable.ts). The last line printed is one JSON object. BENCH_ONLY=keys, flows, idle, tracing, enqueue or
// durable runs that case alone.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';
import { benchDurable } from './bench-durable';
import { benchEnqueue } from './bench-enqueue';
import { benchFlows } from './bench-flows';
import { benchIdle } from './bench-idle';
import { benchKeys } from './bench-keys';
import { benchTracing } from './bench-tracing';
import { readModelOf } from '../lib/api/readpast';

const N = Number(process.env.BENCH_TASKS ?? 60_000);
const BULK = Number(process.env.BENCH_BULK ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const LATENCY_RATE = 1000;
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 5);

const dir = mkdtempSync(join(tmpdir(), 'readpast-bench-'));
const log = (...a: unknown[]) => console.error(...a);

/**
 * A bare better-sqlite3 claim+complete loop over a plain table, same file settings as the store.
 * batch = 1: each iteration claims one row (UPDATE … RETURNING) and completes it in one transaction —
 * the minimal durable per-task loop, the reference of `ratio`. batch > 1 (printed for information):
 * claim `batch` rows per transaction and complete them in a second one.
 */
function rawClaimLoop(path: string, n: number, batch: number): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE q (id INTEGER PRIMARY KEY, status INTEGER NOT NULL, payload TEXT, worker TEXT, started INTEGER, finished INTEGER);
           CREATE INDEX q_pending ON q(id) WHERE status = 0;`);
  const ins = db.prepare('INSERT INTO q (status, payload) VALUES (0, ?)');
  db.transaction(() => {
    for (let i = 0; i < n; i++) ins.run('{}');
  })();
  const claim = db.prepare(`UPDATE q SET status = 1, worker = ?, started = ? WHERE id IN
      (SELECT id FROM q WHERE status = 0 ORDER BY id LIMIT ?) RETURNING id, payload`);
  const done = db.prepare('UPDATE q SET status = 2, finished = ? WHERE id = ?');
  const one = db.transaction(() => {
    const rows = claim.all('w', Date.now(), 1) as { id: number; payload: string }[];
    for (const r of rows) {
      JSON.parse(r.payload);
      done.run(Date.now(), r.id);
    }
    return rows.length;
  });
  const claimTx = db.transaction(() => claim.all('w', Date.now(), batch) as { id: number; payload: string }[]);
  const doneTx = db.transaction((rows: { id: number }[]) => {
    const now = Date.now();
    for (const r of rows) done.run(now, r.id);
  });
  const t0 = performance.now();
  let total = 0;
  for (;;) {
    if (batch === 1) {
      const got = one.immediate();
      if (got === 0) break;
      total += got;
      continue;
    }
    const rows = claimTx.immediate();
    if (rows.length === 0) break;
    for (const r of rows) JSON.parse(r.payload);
    doneTx.immediate(rows);
    total += rows.length;
  }
  const secs = (performance.now() - t0) / 1000;
  db.close();
  return total / secs;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  const cases: Record<string, (dir: string, log: (...a: unknown[]) => void) => Promise<unknown>> = {
    keys: benchKeys,
    flows: benchFlows,
    idle: benchIdle,
    tracing: benchTracing,
    enqueue: benchEnqueue,
    durable: benchDurable,
  };
  const only = cases[process.env.BENCH_ONLY ?? ''] ?? null;
  if (only) {
    console.log(JSON.stringify(await only(dir, log)));
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  log(`readpast bench: ${N} tasks, pool of ${CONCURRENCY}, bulk ${BULK}, latency at ${LATENCY_RATE}/s for ${LATENCY_SECONDS}s`);
  const rawClaimLoopPerSec = rawClaimLoop(join(dir, 'raw.db'), N, 1);
  log(`raw claim+complete loop, one task per transaction (ratio reference): ${Math.round(rawClaimLoopPerSec)}/s`);
  const rawBatchLoopPerSec = rawClaimLoop(join(dir, 'raw-batch.db'), N, CONCURRENCY);
  log(`raw claim+complete loop, ${CONCURRENCY} per transaction (batching ceiling, for information): ${Math.round(rawBatchLoopPerSec)}/s`);

  // bulk enqueue through the library (validation included), after a warm-up on a throwaway file
  const chunk = 10_000;
  const items = Array.from({ length: chunk }, (_, i) => ({ command: 'demo.echo', payload: { i } }));
  const warm = await openReadpast({ url: `sqlite:${join(dir, 'warm.db')}` });
  for (let i = 0; i < 3; i++) await warm.enqueueMany(items);
  await warm.close();
  const bulk = await openReadpast({ url: `sqlite:${join(dir, 'bulk.db')}` });
  let t0 = performance.now();
  for (let done = 0; done < BULK; done += chunk) await bulk.enqueueMany(items);
  const enqueuePerSec = BULK / ((performance.now() - t0) / 1000);
  await bulk.close();
  log(`enqueueMany: ${Math.round(enqueuePerSec)}/s`);

  // processing throughput: trivial handler, ExecutionLog row per attempt
  const rp = await openReadpast({ url: `sqlite:${join(dir, 'engine.db')}` });
  rp.registry.register('bench.noop', () => null);
  for (let done = 0; done < N; done += chunk) {
    await rp.enqueueMany(Array.from({ length: Math.min(chunk, N - done) }, () => ({ command: 'bench.noop' })));
  }
  const pool = rp.createPool({ concurrency: CONCURRENCY, role: 'bench', maintenance: false });
  t0 = performance.now();
  await pool.start();
  for (;;) {
    const q = (await readModelOf(rp).countsByQueue()).find((c) => c.queue === 'default');
    if (q && q.succeeded >= N) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const processedPerSec = N / ((performance.now() - t0) / 1000);
  await pool.stop();
  log(`processed: ${Math.round(processedPerSec)}/s`);
  await rp.close();

  // enqueue-to-start latency at a steady 1,000 tasks/s, default pool size
  const lat = await openReadpast({ url: `sqlite:${join(dir, 'latency.db')}` });
  const lpool = lat.createPool({ concurrency: 4, role: 'bench', maintenance: false });
  await lpool.start();
  const total = LATENCY_RATE * LATENCY_SECONDS;
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * LATENCY_RATE));
    while (sent < due) {
      await lat.enqueue({ command: 'demo.echo' });
      sent++;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  for (;;) {
    const q = (await readModelOf(lat).countsByQueue()).find((c) => c.queue === 'default');
    if (q && q.succeeded >= total) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await lpool.stop();
  const points = await readModelOf(lat).metrics(new Date(Date.now() - 3600_000));
  await lat.close();
  // exact per-task latency from the tables
  const db = new Database(join(dir, 'latency.db'), { readonly: true });
  const lats = (
    db
      .prepare(`SELECT l.started_at - t.created_at AS ms FROM ExecutionLog l JOIN Tasks t ON t.id = l.task_id
      WHERE l.attempt = 1`)
      .all() as { ms: number }[]
  )
    .map((r) => r.ms)
    .sort((a, b) => a - b);
  db.close();
  const latencyP50Ms = percentile(lats, 50);
  const latencyP99Ms = percentile(lats, 99);
  log(`latency over ${lats.length} tasks: p50 ${latencyP50Ms} ms, p99 ${latencyP99Ms} ms (metrics points: ${points.length})`);

  const keys = await benchKeys(dir, log);
  const flows = await benchFlows(dir, log);
  const idle = await benchIdle(dir, log);
  const tracing = await benchTracing(dir, log);
  const enqueue = await benchEnqueue(dir, log);
  const durable = await benchDurable(dir, log);

  rmSync(dir, { recursive: true, force: true });
  const round = (x: number) => Math.round(x);
  console.log(
    JSON.stringify({
      enqueuePerSec: round(enqueuePerSec),
      processedPerSec: round(processedPerSec),
      latencyP50Ms,
      latencyP99Ms,
      rawClaimLoopPerSec: round(rawClaimLoopPerSec),
      ratio: Math.round((processedPerSec / rawClaimLoopPerSec) * 1000) / 1000,
      rawBatchLoopPerSec: round(rawBatchLoopPerSec),
      batchRatio: Math.round((processedPerSec / rawBatchLoopPerSec) * 1000) / 1000,
      keyedPerSec: keys.keyedPerSec,
      noKeyPerSec: keys.noKeyPerSec,
      keysRatio: keys.keysRatio,
      keyByKeyRatio: keys.keyByKeyRatio,
      keysTarget: keys.keysTarget,
      plainPerSec: flows.plainPerSec,
      flowPerSec: flows.flowPerSec,
      drainRatio: flows.drainRatio,
      drainTarget: flows.drainTarget,
      enqueueManyMs: flows.enqueueManyMs,
      flowCreateMs: flows.flowCreateMs,
      createRatio: flows.createRatio,
      createTarget: flows.createTarget,
      idle,
      untracedPerSec: tracing.untracedPerSec,
      tracedPerSec: tracing.tracedPerSec,
      tracingRatio: tracing.tracingRatio,
      enqueue,
      plainTasksPerSec: durable.plainTasksPerSec,
      stepsPerSec: durable.stepsPerSec,
      transactionStepsPerSec: durable.transactionStepsPerSec,
      stepsRatio: durable.stepsRatio,
      stepsCpuRatio: durable.stepsCpuRatio,
      transactionRatio: durable.transactionRatio,
      stepsTarget: durable.stepsTarget,
    }),
  );
}

main().catch((err) => {
  console.error(err);
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
});
