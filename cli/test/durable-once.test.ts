// A durable handler's transactional step commits exactly once across crashes: 200 tasks, each a transactional step
// that inserts one row into a table of the test's own (and lingers 30 ms inside its transaction), then a step that
// SIGKILLs its own worker process the first time it runs (a marker file per task; the kill comes at the tenth
// marker of a process or 3 s after its first, so one kill takes several tasks down, and those in their first step
// with them), then a final step (100 attempts each: a task may be in flight at many kills). Three `readpast worker`
// processes with a 2 s lease, each restarted when it dies. Every task succeeds;
// exactly one row per task; the first step's record says it committed once, and a task resumed after its kill
// replayed it (recorded by an earlier attempt than the one that finished).
//
// Checked that it can fail: DURABLE_ONCE_PLAIN=1 runs the same first step as a plain `ctx.step` writing the row on
// a connection of its own — an effect outside the step's record — and the kills then leave tasks with two rows
// (this test then expects duplicates instead, and says how many).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testBed } from './bed';
import { limited, ROOT, waitFor, WorkerProcess } from './helpers';

const TASKS = Number(process.env.DURABLE_ONCE_TASKS ?? 200);
const PROCESSES = 3;
const CONCURRENCY = 16;
const QUEUE = 'once';
const PLAIN = process.env.DURABLE_ONCE_PLAIN === '1';

const HANDLER = `
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
const dir = process.env.ONCE_DIR;
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
let own = null;
function plainInsert(k) {
  // an effect outside the step's record: its own connection, committed before the step is recorded
  if (!own) {
    const Database = createRequire(join(process.env.ONCE_ROOT, 'package.json'))('better-sqlite3');
    own = new Database(process.env.ONCE_DB);
    own.pragma('busy_timeout = 30000');
  }
  own.prepare('INSERT INTO once_rows (k) VALUES (?)').run(k);
}
let marked = 0;
let dying = false;
const die = () => process.kill(process.pid, 'SIGKILL');
export function register(registry) {
  registry.register('test.once', async (p, ctx) => {
    const inserted = process.env.ONCE_PLAIN === '1'
      ? await ctx.step('insert', async () => { plainInsert(p.k); await pause(30); return { k: p.k }; })
      : await ctx.transaction('insert', async (tx) => {
          await tx.execute('INSERT INTO once_rows (k) VALUES (@k)', { k: p.k });
          await pause(30);
          return { k: p.k };
        });
    await ctx.step('crash', async () => {
      const marker = join(dir, 'marker-' + p.k);
      if (existsSync(marker)) return 'survived';
      writeFileSync(marker, String(process.pid));
      // one kill takes several tasks down: at the tenth marker of this process, or 3 s after its first
      if (++marked >= 10) die();
      if (!dying) {
        dying = true;
        setTimeout(die, 3000);
      }
      await new Promise(() => {});
    });
    return ctx.step('final', () => ({ done: inserted.k }));
  });
}
`;

describe('transactional steps across SIGKILLed worker processes', () => {
  const bed = testBed();

  it(`${TASKS} tasks: every one succeeds with exactly one row, its first step committed once`, async () => {
    const { db, lib, workers } = bed;
    writeFileSync(join(db.dir, 'once.mjs'), HANDLER);
    await lib.withTransaction((tx) => tx.execute('CREATE TABLE once_rows (k TEXT NOT NULL)'));
    const env = {
      ...db.env,
      ONCE_DIR: db.dir,
      ONCE_ROOT: ROOT,
      ONCE_DB: db.url.slice('sqlite:'.length),
      ONCE_PLAIN: PLAIN ? '1' : '0',
    };
    const args = ['--concurrency', String(CONCURRENCY), '--lease-seconds', '2', '--handlers', './once.mjs', '--queues', QUEUE];
    const live: WorkerProcess[] = [];
    let started = 0;
    const spawnOne = () => {
      const w = new WorkerProcess(args, { env, cwd: db.dir });
      workers.push(w);
      live.push(w);
      started++;
      return w;
    };
    for (let i = 0; i < PROCESSES; i++) spawnOne();
    await Promise.all(live.map((w) => w.started(60_000)));
    lib.registry.register('test.once', () => null);
    const made = await lib.enqueueMany(
      Array.from({ length: TASKS }, (_, i) => ({ command: 'test.once', queue: QUEUE, maxAttempts: 100, payload: { k: `k${i}` } })),
    );
    const tokens = made.map((m) => m.token);

    // keep three processes running: each kills itself, a new one takes its place
    const supervisor = setInterval(() => {
      for (let i = live.length - 1; i >= 0; i--) if (!live[i]!.running) live.splice(i, 1);
      while (live.length < PROCESSES) spawnOne();
    }, 100);
    try {
      await waitFor(
        async () => {
          const c = await lib.taskCounts(QUEUE);
          if (process.env.DURABLE_ONCE_TRACE) {
            const p = await lib.tasks({ queue: QUEUE, status: 'pending', limit: 3 });
            const brief = p.items.map((t) => [t.attempts, t.runAfter, t.lastError?.message?.slice(0, 120)]);
            console.info(new Date().toISOString(), JSON.stringify(c), 'started', started, JSON.stringify(brief));
          }
          return c.succeeded + c.dead + c.cancelled === TASKS;
        },
        { timeoutMs: 600_000, intervalMs: 500, what: `all ${TASKS} tasks to finish`, workers: live },
      );
    } finally {
      clearInterval(supervisor);
    }
    const kills = started - PROCESSES;
    const rows = (
      await lib.withTransaction((tx) => tx.execute<{ k: string; n: number }>('SELECT k, COUNT(*) AS n FROM once_rows GROUP BY k'))
    ).rows;
    const perKey = new Map(rows.map((r) => [r.k, Number(r.n)]));
    const twice = [...perKey.values()].filter((n) => n > 1).length;
    console.info(`durable once (${PLAIN ? 'plain step' : 'transactional step'}): ${kills} kills, ${twice} tasks with more than one row`);
    expect(kills, 'the tasks killed their workers').toBeGreaterThan(0);
    if (PLAIN) {
      expect(twice, 'a plain step re-runs its effect after a kill').toBeGreaterThan(0);
      return;
    }
    const statuses = await limited(tokens, 8, (t) => lib.status(t));
    let replayed = 0;
    for (const s of statuses) expect(s.status, `${s.token}: ${JSON.stringify(s.lastError)}`).toBe('succeeded');
    for (let i = 0; i < TASKS; i++) expect(perKey.get(`k${i}`), `rows of k${i}`).toBe(1);
    expect(rows).toHaveLength(TASKS);
    await limited(tokens, 8, async (t) => {
      const steps = await lib.steps(t);
      const insert = steps.find((s) => s.name === 'insert')!;
      const final = steps.find((s) => s.name === 'final')!;
      expect(insert, `${t} insert`).toMatchObject({ kind: 'transaction', status: 'succeeded', tries: 1 });
      expect(
        steps.find((s) => s.name === 'crash'),
        `${t} crash`,
      ).toMatchObject({ status: 'succeeded', result: 'survived' });
      if (final.attempt > insert.attempt) replayed++;
    });
    // every task was killed after its first step at least once (its marker), so it finished in a later attempt
    expect(replayed).toBe(TASKS);
  }, 900_000);
});
