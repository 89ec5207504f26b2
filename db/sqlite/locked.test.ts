// The embedded database held by another process — a long write transaction, a backup, a stuck
// tool: SQLite's form of "the database is busy" and of "the database went away and came back".
// A pool with a short lease loses no lease while the write lock is held for less than the lease,
// and claims resume as soon as it is released.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../lib/engine/handlers';
import type { Logger } from '../../lib/engine/logger';
import { Pool } from '../../lib/engine/pool';
import type { EnqueueInput } from '../../lib/engine/types';
import { openSqliteStore, type SqliteStore } from './store';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Another process takes the write lock (BEGIN IMMEDIATE: in WAL mode readers go on, every writer
 * waits) and holds it for `ms`. The process is started and has loaded its driver before `lockWrites`
 * resolves; `take()` then locks at once (a slow process start cannot let writes through late) and
 * resolves once the lock is held; `released` resolves when it is let go.
 */
async function lockWrites(path: string, ms: number): Promise<{ take: () => Promise<void>; released: Promise<number> }> {
  const script = `const D = require('better-sqlite3'); const d = new D(process.argv[1]); process.stdout.write('ready\\n');
process.stdin.once('data', () => { d.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');
setTimeout(() => { d.exec('COMMIT'); d.close(); process.stdout.write('released\\n'); process.exit(0); }, Number(process.argv[2])); });`;
  const child = spawn(process.execPath, ['-e', script, path, String(ms)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let onReady: () => void;
  let onLocked: () => void;
  let onReleased: (at: number) => void;
  const ready = new Promise<void>((r) => (onReady = r));
  const locked = new Promise<void>((r) => (onLocked = r));
  const released = new Promise<number>((r) => (onReleased = r));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (out.includes('ready')) onReady();
    if (out.includes('locked')) onLocked();
    if (out.includes('released')) onReleased(Date.now());
  });
  await ready;
  return {
    take: async () => {
      child.stdin.write('lock\n');
      await locked;
    },
    released,
  };
}

/** Hold the write lock for `ms` from now (resolves once it is held). */
async function holdWriteLock(path: string, ms: number): Promise<{ released: Promise<number> }> {
  const lock = await lockWrites(path, ms);
  await lock.take();
  return { released: lock.released };
}

function capture(): Logger & { warnings: { msg: string; [k: string]: unknown }[] } {
  const warnings: { msg: string; [k: string]: unknown }[] = [];
  const noop = () => {};
  return { warnings, debug: noop, info: noop, error: noop, warn: (o, m) => warnings.push({ ...o, msg: m ?? '' }) };
}

let dir: string;
let path: string;
let store: SqliteStore;
let pool: Pool | null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-locked-'));
  path = join(dir, 'db.sqlite');
  store = await openSqliteStore(path);
  pool = null;
});

afterEach(async () => {
  await pool?.stop(0);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleepTask = (ms: number, runAt?: Date): EnqueueInput => ({ kind: 'handler', command: 'demo.sleep', payload: { ms }, runAt });

async function until(ok: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await sleep(20);
  }
}

describe('the database file write-locked by another process', () => {
  it('loses no lease while the lock is held for less than the lease', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await store.commands.enqueue(sleepTask(3500))).token);
    const log = capture();
    pool = new Pool(store, defaultRegistry(), { concurrency: 4, leaseMs: 3000, heartbeatMs: 250, pollMs: 50, logger: log });
    await pool.start();
    await until(async () => pool!.busy === 4, 5000);
    // claims, finishes, maintenance and heartbeats all need the write lock: none gets it for 2 s
    const { released } = await holdWriteLock(path, 2000);
    await released;
    await until(async () => (await Promise.all(tokens.map((t) => store.reads.getTask(t)))).every((t) => t?.status === 'succeeded'), 10_000);
    for (const t of tokens) {
      const task = await store.reads.getTask(t);
      expect(task!.history.map((h) => h.outcome)).toEqual(['succeeded']);
    }
    expect(log.warnings.filter((w) => /lost its lease/.test(w.msg))).toEqual([]);
    // the heartbeat that waited for the lock is reported with how long it took
    const slow = log.warnings.filter((w) => /slow heartbeat/.test(w.msg));
    expect(slow.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...slow.map((w) => w.ms as number))).toBeGreaterThan(1500);
  });

  it('claims resume within 2 s of the lock being released', async () => {
    pool = new Pool(store, defaultRegistry(), { concurrency: 2, leaseMs: 10_000, heartbeatMs: 500, pollMs: 500 });
    await pool.start();
    // due while the file is locked: the locking process is up before the tasks are enqueued, and locks
    // right after, well before they are due
    const lock = await lockWrites(path, 3000);
    const dueAt = new Date(Date.now() + 400);
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await store.commands.enqueue(sleepTask(10, dueAt))).token);
    await lock.take();
    const { released } = lock;
    // nothing can start while the lock is held
    await sleep(1000);
    expect((await Promise.all(tokens.map((t) => store.reads.getTask(t)))).every((t) => t?.status === 'pending')).toBe(true);
    const at = await released;
    await until(async () => (await Promise.all(tokens.map((t) => store.reads.getTask(t)))).every((t) => t?.status === 'succeeded'), 5000);
    const first = Math.min(
      ...(await Promise.all(tokens.map(async (t) => (await store.reads.getTask(t))!.history[0]!.startedAt.getTime()))),
    );
    expect(first - at).toBeLessThan(2000);
  });
});

describe('the database file held exclusively by another process while this one opens it', () => {
  it('opening waits for it (the pragmas and the migration check of the open), then works', async () => {
    await store.close();
    // the other process holds the file exclusively (no reader gets in): as a tool might, or as the first opener of
    // a file does for an instant while it builds the WAL index — long enough, on a busy machine, to fail an open
    const script = `const D = require('better-sqlite3'); const d = new D(process.argv[1]); d.pragma('locking_mode = EXCLUSIVE');
d.exec('BEGIN EXCLUSIVE'); d.exec('CREATE TABLE IF NOT EXISTS held (x)'); process.stdout.write('locked\\n');
setTimeout(() => { d.exec('COMMIT'); d.close(); process.stdout.write('released\\n'); process.exit(0); }, Number(process.argv[2]));`;
    const child = spawn(process.execPath, ['-e', script, path, '700'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const released = new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d).includes('released') && resolve()),
    );
    await until(async () => out.includes('locked'), 30_000);
    const opening = openSqliteStore(path);
    await released;
    store = await opening;
    const { token } = await store.commands.enqueue(sleepTask(1));
    expect((await store.reads.getTask(token))?.status).toBe('pending');
  });
});
