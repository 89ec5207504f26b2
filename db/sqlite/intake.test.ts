// The intake (intake.ts): a plain task enqueued alone is appended in one statement, and moved into Tasks by the
// next write or read of any process on the file — in order, counted, nothing lost when no one moves it for a while.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import { MAX_CONCURRENCY_KEY_LENGTH } from '../../lib/engine/limits';
import type { AuditWrite } from '../../lib/engine/ports';
import type { EnqueueResult } from '../../lib/engine/types';
import { Harness } from '../contract/harness';
import { ADMIT_WAIT_MS, openSqliteStore, type SqliteStore } from './store';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;
let file: string;
const opened: SqliteStore[] = [];

async function open(): Promise<SqliteStore> {
  const s = await openSqliteStore(file);
  opened.push(s);
  return s;
}

/** What the file holds, read on a connection of its own (not through a store, whose reads would move the intake). */
function raw(): { intake: number; tasks: number } {
  const db = new Database(file, { readonly: true });
  try {
    const n = (t: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { intake: n('Intake'), tasks: n('Tasks') };
  } finally {
    db.close();
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-intake-'));
  file = join(dir, 'rp.db');
});

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const plain = (i: number, queue = 'q') => ({ kind: 'handler' as const, command: 'demo.echo', queue, payload: { i } });

describe('the intake', () => {
  it('a plain task enqueued alone is appended; the next read moves it into Tasks, pending and counted', async () => {
    const s = await open();
    await s.commands.enqueue(plain(0)); // a new queue: written directly, creating it
    expect(raw()).toEqual({ intake: 0, tasks: 1 });
    const { token } = await s.commands.enqueue(plain(1));
    expect(raw()).toEqual({ intake: 1, tasks: 1 });
    const t = await s.reads.getTask(token);
    expect(t).toMatchObject({ token, status: 'pending', queue: 'q', payload: { i: 1 } });
    expect(raw()).toEqual({ intake: 0, tasks: 2 });
    expect((await s.reads.countsByQueue()).find((c) => c.queue === 'q')).toMatchObject({ pending: 2 });
    const since = new Date(Date.now() - 60_000);
    const enqueued = (await s.reads.metrics(since)).reduce((n, p) => n + p.enqueued, 0);
    expect(enqueued).toBe(2);
  });

  it('keeps the order of enqueue across the intake and direct writes: claimed first in, first out', async () => {
    const s = await open();
    const h = new Harness(s);
    const tokens = [(await s.commands.enqueue(plain(0))).token];
    for (let i = 1; i <= 3; i++) tokens.push((await s.commands.enqueue(plain(i))).token);
    // a dedup key is checked against Tasks: written directly, after the three appended before it are moved
    tokens.push((await s.commands.enqueue({ ...plain(4), dedupKey: 'd-4' })).token);
    tokens.push((await s.commands.enqueue(plain(5))).token);
    expect(raw()).toEqual({ intake: 1, tasks: 5 });
    const slot = await h.worker();
    const claimed: string[] = [];
    for (let i = 0; i < tokens.length; i++) claimed.push((await h.claimOne(slot, { queues: ['q'] })).token);
    expect(claimed).toEqual(tokens);
  });

  it("another process's read and claim see what one process appended", async () => {
    const a = await open();
    const b = await open();
    await a.commands.enqueue(plain(0));
    const { token } = await a.commands.enqueue(plain(1));
    expect(raw().intake).toBe(1);
    expect((await b.reads.countsByQueue()).find((c) => c.queue === 'q')).toMatchObject({ pending: 2 });
    const h = new Harness(b);
    const slot = await h.worker();
    await h.claimOne(slot, { queues: ['q'] });
    expect((await h.claimOne(slot, { queues: ['q'] })).token).toBe(token);
  });

  it('a task no one moved yet outlives its process: a store opened later finds it', async () => {
    const a = await open();
    await a.commands.enqueue(plain(0));
    const { token } = await a.commands.enqueue({ ...plain(1), priority: 7, maxAttempts: 9, concurrencyKey: 'k-1' });
    await a.close();
    expect(raw()).toEqual({ intake: 1, tasks: 1 });
    const b = await open();
    expect(await b.reads.getTask(token)).toMatchObject({ token, status: 'pending', priority: 7, maxAttempts: 9, concurrencyKey: 'k-1' });
  });

  it("takes its queue's defaults and keyFrom at enqueue; a key too long is refused there, nothing written", async () => {
    const s = await open();
    await s.commands.setQueue('q', { keyFrom: '$.tenant' }, 'test');
    const { token } = await s.commands.enqueue({ ...plain(0), payload: { tenant: 'acme' } });
    expect(raw()).toEqual({ intake: 1, tasks: 0 });
    expect(await s.reads.getTask(token)).toMatchObject({ concurrencyKey: 'acme' });
    const long = 'x'.repeat(MAX_CONCURRENCY_KEY_LENGTH + 1);
    const refused = s.commands.enqueue({ ...plain(1), payload: { tenant: long } });
    await expect(refused).rejects.toThrow(ValidationError);
    await expect(refused).rejects.toMatchObject({ field: 'payload' });
    expect(raw()).toEqual({ intake: 0, tasks: 1 });
  });

  it('a queue gone before its appended task moves is created again with the defaults', async () => {
    const s = await open();
    await s.commands.enqueue(plain(0, 'gone'));
    const { token } = await s.commands.enqueue(plain(1, 'gone'));
    const db = new Database(file);
    // what a queue removed meanwhile by another process leaves: the task appended, its queue not there
    db.prepare("DELETE FROM Tasks WHERE queue = 'gone'").run();
    db.prepare("DELETE FROM QueueCounts WHERE queue = 'gone'").run();
    db.prepare("DELETE FROM Queues WHERE name = 'gone'").run();
    db.close();
    expect(await s.reads.getTask(token)).toMatchObject({ token, status: 'pending', queue: 'gone' });
    expect((await s.reads.listQueues()).map((q) => q.name)).toContain('gone');
  });

  it('an enqueue with a dedup key, parents or a batch, and an audited one, are written to Tasks directly', async () => {
    const s = await open();
    const first = await s.commands.enqueue(plain(0));
    await s.commands.enqueue({ ...plain(1), dedupKey: 'once' });
    await s.commands.enqueue({ ...plain(2), dependsOn: [{ token: first.token, onParentFailure: 'cancel' }] });
    const audit: AuditWrite<EnqueueResult> = {
      entry: (r) => ({ actor: 'op', source: 'api', action: 'task.enqueue', target: r.token }),
    };
    await s.commands.enqueue(plain(3), undefined, audit);
    expect(raw()).toEqual({ intake: 0, tasks: 4 });
    expect(audit.id).toBeGreaterThan(0);
  });
});

describe('the intake, read while another process writes', () => {
  it('a read waits a moment for the write lock to move it, then shows Tasks as they are; by token it finds it still', async () => {
    const s = await open();
    await s.commands.enqueue(plain(0));
    const { token } = await s.commands.enqueue(plain(1));
    const db = new Database(file);
    // another process holds the write lock past the read's wait for it (ADMIT_WAIT_MS), not the writes' 30 s
    db.exec('BEGIN IMMEDIATE');
    try {
      const t0 = Date.now();
      const counts = await s.reads.countsByQueue();
      expect(Date.now() - t0).toBeGreaterThanOrEqual(ADMIT_WAIT_MS);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(counts.find((c) => c.queue === 'q')).toMatchObject({ pending: 1 });
      // by its token it is found all the same, as it will be once moved: pending, no attempt (id 0: none yet)
      expect(await s.reads.getTask(token)).toMatchObject({ id: 0, token, status: 'pending', attempts: 0, payload: { i: 1 }, history: [] });
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
    expect((await s.reads.countsByQueue()).find((c) => c.queue === 'q')).toMatchObject({ pending: 2 });
    expect((await s.reads.getTask(token))!.id).toBeGreaterThan(0);
  });
});

describe('the intake across processes', () => {
  it('a producer killed (SIGKILL) right after its enqueues returned loses none: the next process moves them all', async () => {
    const script = join(dir, 'producer.mts');
    const store = pathToFileURL(join(ROOT, 'db/sqlite/store.ts')).href;
    writeFileSync(
      script,
      `import { openSqliteStore } from ${JSON.stringify(store)};
const s = await openSqliteStore(process.argv[2]);
for (let i = 0; i < 200; i++) {
  const r = await s.commands.enqueue({ kind: 'handler', command: 'demo.echo', queue: 'q', payload: { i } });
  process.stdout.write(r.token + '\\n');
}
process.stdout.write('done\\n');
setInterval(() => {}, 1000);
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    onTestFinished(() => void child.kill('SIGKILL')); // also when the test fails before it kills it
    let out = '';
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('done\n')) resolve();
      });
      child.on('exit', () => reject(new Error(`the producer exited early: ${out.slice(-200)}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const tokens = out.split('\n').filter((l) => l && l !== 'done');
    expect(tokens).toHaveLength(200);
    // the queue's first task was written directly (it created the queue); the others wait in the intake
    expect(raw()).toEqual({ intake: 199, tasks: 1 });
    const s = await open();
    expect((await s.reads.countsByQueue()).find((c) => c.queue === 'q')).toMatchObject({ pending: 200 });
    for (const t of [tokens[0]!, tokens[1]!, tokens[199]!]) expect(await s.reads.getTask(t)).toMatchObject({ token: t, status: 'pending' });
    const h = new Harness(s);
    const slot = await h.worker();
    const claimed = await s.worker.claim([slot, slot, slot], { leaseMs: 60_000, queues: ['q'] });
    expect(claimed.map((c) => c.token)).toEqual(tokens.slice(0, 3));
  });
});
