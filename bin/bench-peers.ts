// `npm run bench:peers`: readpast's embedded store side by side with plainjob (better-sqlite3, one claim and
// one completion per job) in one process, on fresh temp files, in alternating rounds so that a busy machine
// slows both alike. Measures drained tasks/s at pools of 4, 16 and 64, single enqueue/s (one task per call, each
// awaited before the next: plainjob's `add`, readpast's `rp.enqueue` with its validation), bulk enqueue/s (1,000 per
// call: `addMany`, `enqueueMany`), and a bare better-sqlite3 loop claiming 64 rows per transaction (the batching
// ceiling). Both queues run on SQLite in WAL with synchronous=NORMAL (plainjob sets them itself, as the store
// does). Prints each figure and the medians; the last line printed is one JSON object: each ratio is the median
// over rounds of the two figures measured back to back in a round, followed by the median of every raw figure.
// It also measures ceilings (db/sqlite/bench/ceiling.ts): the store's schema with nothing but SQL running —
// the product's rows inserted bare (insertCeilingVsPlainjob), the store's claim and settle statements per
// task (perTaskSqlVsBatchedRawLoop), and the least SQL that keeps the Tasks row and one ExecutionLog row per
// attempt (leastSqlVsBatchedRawLoop). A target above its ceiling cannot be met by code, only by the schema.
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { better, defineQueue, defineWorker } from 'plainjob';
import { openReadpast } from '../lib/api/open';
import { drainLeast, drainPerTask, insertCeiling } from '../db/sqlite/bench/ceiling';
import { readModelOf } from '../lib/api/readpast';

const N = Number(process.env.BENCH_TASKS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BULK_CALL = 1_000;
/** single enqueues per round (each awaited before the next) */
const SINGLE = Number(process.env.BENCH_SINGLE ?? 5_000);
const POOLS = [4, 16, 64] as const;
const RAW_BATCH = 64;

const dir = mkdtempSync(join(tmpdir(), 'readpast-peers-'));
const log = (...a: unknown[]) => console.error(...a);
let fileNo = 0;
const fresh = (name: string) => join(dir, `${name}-${++fileNo}.db`);
const payloads = Array.from({ length: BULK_CALL }, (_, i) => ({ i }));
const quiet = { debug() {}, info() {}, warn() {}, error() {}, log() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- plainjob ---------------------------------------------------------------------------------------

async function plainjobBulk(n: number): Promise<number> {
  const queue = defineQueue({ connection: better(new Database(fresh('pj-bulk'))), logger: quiet });
  const t0 = performance.now();
  for (let done = 0; done < n; done += BULK_CALL) queue.addMany('noop', payloads);
  const perSec = n / ((performance.now() - t0) / 1000);
  queue.close();
  return perSec;
}

async function plainjobSingle(n: number): Promise<number> {
  const queue = defineQueue({ connection: better(new Database(fresh('pj-single'))), logger: quiet });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await queue.add('noop', { i });
  const perSec = n / ((performance.now() - t0) / 1000);
  queue.close();
  return perSec;
}

async function plainjobDrain(n: number, pool: number): Promise<number> {
  const queue = defineQueue({ connection: better(new Database(fresh('pj-drain'))), logger: quiet });
  for (let done = 0; done < n; done += BULK_CALL) queue.addMany('noop', payloads);
  let completed = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const workers = Array.from({ length: pool }, () =>
    defineWorker('noop', () => {}, {
      queue,
      logger: quiet,
      onCompleted: () => {
        if (++completed === n) finished();
      },
    }),
  );
  const t0 = performance.now();
  for (const w of workers) void w.start();
  await all;
  const perSec = n / ((performance.now() - t0) / 1000);
  await Promise.all(workers.map((w) => w.stop()));
  await sleep(5);
  queue.close();
  return perSec;
}

// ---- readpast ---------------------------------------------------------------------------------------

const items = payloads.map((payload) => ({ command: 'bench.noop', payload }));

async function readpastBulk(n: number): Promise<number> {
  const rp = await openReadpast({ url: `sqlite:${fresh('rp-bulk')}` });
  rp.registry.register('bench.noop', () => null);
  const t0 = performance.now();
  for (let done = 0; done < n; done += BULK_CALL) await rp.enqueueMany(items);
  const perSec = n / ((performance.now() - t0) / 1000);
  await rp.close();
  return perSec;
}

async function readpastSingle(n: number): Promise<number> {
  const rp = await openReadpast({ url: `sqlite:${fresh('rp-single')}` });
  rp.registry.register('bench.noop', () => null);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await rp.enqueue({ command: 'bench.noop', payload: { i } });
  const perSec = n / ((performance.now() - t0) / 1000);
  await rp.close();
  return perSec;
}

async function readpastDrain(n: number, concurrency: number): Promise<number> {
  const rp = await openReadpast({ url: `sqlite:${fresh('rp-drain')}` });
  rp.registry.register('bench.noop', () => null);
  for (let done = 0; done < n; done += BULK_CALL) await rp.enqueueMany(items);
  const pool = rp.createPool({ concurrency, role: 'bench', maintenance: false });
  const t0 = performance.now();
  await pool.start();
  for (;;) {
    const q = (await readModelOf(rp).countsByQueue()).find((c) => c.queue === 'default');
    if (q && q.succeeded >= n) break;
    await sleep(2);
  }
  const perSec = n / ((performance.now() - t0) / 1000);
  await pool.stop();
  await rp.close();
  return perSec;
}

// ---- the batched raw loop ---------------------------------------------------------------------------

/** A bare better-sqlite3 loop (store's file settings) claiming `batch` rows per transaction, completing them in a second one. */
function batchedRawLoop(n: number, batch: number): number {
  const db = new Database(fresh('raw'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE q (id INTEGER PRIMARY KEY, status INTEGER NOT NULL, payload TEXT, worker TEXT, started INTEGER, finished INTEGER);
           CREATE INDEX q_pending ON q(id) WHERE status = 0;`);
  const ins = db.prepare('INSERT INTO q (status, payload) VALUES (0, ?)');
  db.transaction(() => {
    for (let i = 0; i < n; i++) ins.run(JSON.stringify({ i }));
  })();
  const claim = db.prepare(`UPDATE q SET status = 1, worker = ?, started = ? WHERE id IN
      (SELECT id FROM q WHERE status = 0 ORDER BY id LIMIT ?) RETURNING id, payload`);
  const done = db.prepare('UPDATE q SET status = 2, finished = ? WHERE id = ?');
  const claimTx = db.transaction(() => claim.all('w', Date.now(), batch) as { id: number; payload: string }[]);
  const doneTx = db.transaction((rows: { id: number }[]) => {
    const now = Date.now();
    for (const r of rows) done.run(now, r.id);
  });
  const t0 = performance.now();
  let total = 0;
  for (;;) {
    const rows = claimTx.immediate();
    if (rows.length === 0) break;
    for (const r of rows) JSON.parse(r.payload);
    doneTx.immediate(rows);
    total += rows.length;
  }
  const perSec = total / ((performance.now() - t0) / 1000);
  db.close();
  return perSec;
}

// ---- rounds -----------------------------------------------------------------------------------------

type Figure = 'single' | 'bulk' | `pool${(typeof POOLS)[number]}`;
const figures: Record<string, number[]> = {};
const note = (key: string, v: number) => {
  (figures[key] ??= []).push(v);
  log(`  ${key.padEnd(22)} ${Math.round(v)}/s`);
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function pair(what: Figure, round: number, pj: () => Promise<number>, rp: () => Promise<number>): Promise<void> {
  // alternate who goes first, so neither always runs on the warmer (or the busier) machine
  if (round % 2 === 0) {
    note(`plainjob.${what}`, await pj());
    note(`readpast.${what}`, await rp());
  } else {
    note(`readpast.${what}`, await rp());
    note(`plainjob.${what}`, await pj());
  }
}

async function main() {
  log(
    `bench:peers: ${N} tasks, ${ROUNDS} rounds, pools ${POOLS.join('/')}, ${SINGLE} single enqueues, bulk ${BULK_CALL} per call, ` +
      `raw loop ${RAW_BATCH} per tx`,
  );
  // warm-up (JIT, module loading), not counted
  await plainjobDrain(2_000, 4);
  await readpastDrain(2_000, 4);
  await plainjobBulk(2_000);
  await readpastBulk(2_000);
  await plainjobSingle(1_000);
  await readpastSingle(1_000);
  const began = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1}`);
    await pair(
      'single',
      round,
      () => plainjobSingle(SINGLE),
      () => readpastSingle(SINGLE),
    );
    await pair(
      'bulk',
      round,
      () => plainjobBulk(N),
      () => readpastBulk(N),
    );
    for (const p of POOLS)
      await pair(
        `pool${p}`,
        round,
        () => plainjobDrain(N, p),
        () => readpastDrain(N, p),
      );
    note('raw.batched64', batchedRawLoop(N, RAW_BATCH));
    note('ceiling.insert', await insertCeiling(fresh('ceiling-insert'), N));
    note('ceiling.drainPerTask', await drainPerTask(fresh('ceiling-per-task'), N));
    note('ceiling.drainLeast', await drainLeast(fresh('ceiling-least'), N));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
  }
  const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)]));
  const r = (x: number) => Math.round(x * 100) / 100;
  /** the median over rounds of a/b measured in the same round (back to back: a busy spell slows both alike) */
  const ratio = (a: string, b: string) => r(median(figures[a]!.map((x, i) => x / figures[b]![i]!)));
  const out = {
    pool4Ratio: ratio('readpast.pool4', 'plainjob.pool4'),
    pool16Ratio: ratio('readpast.pool16', 'plainjob.pool16'),
    pool64Ratio: ratio('readpast.pool64', 'plainjob.pool64'),
    singleEnqueueRatio: ratio('readpast.single', 'plainjob.single'),
    bulkEnqueueRatio: ratio('readpast.bulk', 'plainjob.bulk'),
    pool64VsBatchedRawLoop: ratio('readpast.pool64', 'raw.batched64'),
    insertCeilingVsPlainjob: ratio('ceiling.insert', 'plainjob.bulk'),
    perTaskSqlVsBatchedRawLoop: ratio('ceiling.drainPerTask', 'raw.batched64'),
    leastSqlVsBatchedRawLoop: ratio('ceiling.drainLeast', 'raw.batched64'),
    tasks: N,
    rounds: ROUNDS,
    ...Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Math.round(v)])),
    seconds: Math.round((performance.now() - began) / 1000),
  };
  log('medians:');
  for (const [k, v] of Object.entries(m)) log(`  ${k.padEnd(22)} ${Math.round(v)}/s`);
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
});
