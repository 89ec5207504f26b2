// withTransaction on a real SQLite file: the caller's table and the tasks commit or roll back together;
// validation dooms the whole transaction; the pool (this process's and another connection's writers)
// waits while a transaction is open and none of its work is rolled back with the caller's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../engine/errors';
import { sleep } from '../engine/handlers';
import type { Pool } from '../engine/pool';
import { openReadpast } from './open';
import { readModelOf, type Readpast } from './readpast';

let dir: string;
let url: string;
let rp: Readpast;
const others: Readpast[] = [];
let pools: Pool[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-tx-'));
  url = `sqlite:${join(dir, 'app.db')}`;
  rp = await openReadpast({ url });
  pools = [];
  await rp.withTransaction((tx) => tx.execute('CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)'));
});

afterEach(async () => {
  for (const p of pools) await p.stop(0);
  for (const o of others.splice(0)) await o.close();
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const orders = async () =>
  (await rp.withTransaction((tx) => tx.execute<{ id: number; item: string }>('SELECT id, item FROM orders ORDER BY id'))).rows;
const counts = async () =>
  (await readModelOf(rp).countsByQueue()).filter((c) => c.waiting + c.pending + c.running + c.succeeded + c.dead + c.cancelled > 0);

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; last value ${JSON.stringify(v)}`);
    await sleep(10);
  }
}

describe('rp.withTransaction (SQLite)', () => {
  it('commits the row and the task together; the pool is woken at once and runs it', async () => {
    // polling every minute: only the wake-up after the commit can start the task in time
    const pool = rp.createPool({ concurrency: 1, pollMs: 60_000, heartbeatMs: 50 });
    pools.push(pool);
    await pool.start();
    await sleep(100);
    const { token } = await rp.withTransaction(async (tx) => {
      const r = await tx.execute('INSERT INTO orders (id, item) VALUES (?, ?)', [1, 'book']);
      expect(r.rowsAffected).toBe(1);
      return tx.enqueue({ command: 'demo.echo', payload: { order: 1 } });
    });
    const committed = Date.now();
    const s = await until(
      () => rp.status(token),
      (x) => x.status === 'succeeded',
      2000,
    );
    expect(new Date(s.startedAt!).getTime() - committed).toBeLessThan(1000);
    expect(await orders()).toEqual([{ id: 1, item: 'book' }]);
    expect(await counts()).toEqual([
      { queue: 'default', waiting: 0, pending: 0, claimed: 0, running: 0, succeeded: 1, dead: 0, cancelled: 0 },
    ]);
  });

  it('rolls back the row and the task when the callback throws, and rethrows', async () => {
    const boom = new Error('payment declined');
    let token = '';
    await expect(
      rp.withTransaction(async (tx) => {
        await tx.execute('INSERT INTO orders (id, item) VALUES (@id, @item)', { id: 2, item: 'lamp' });
        token = (await tx.enqueue({ command: 'demo.echo', payload: { order: 2 } })).token;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await orders()).toEqual([]);
    expect(await readModelOf(rp).getTask(token)).toBeNull();
    expect(await counts()).toEqual([]);
  });

  it('a validation error inside tx.enqueue rolls back the whole transaction, even when caught', async () => {
    let caught: unknown = null;
    const e = await rp
      .withTransaction(async (tx) => {
        await tx.execute('INSERT INTO orders (id, item) VALUES (?, ?)', [3, 'desk']);
        await tx.enqueue({ command: 'demo.echo', payload: null });
        try {
          await tx.enqueue({ command: 'demo.echo', payload: null, priority: 'high' });
        } catch (err) {
          caught = err;
        }
        // later calls are refused: the transaction is doomed
        await expect(tx.execute('INSERT INTO orders (id, item) VALUES (?, ?)', [4, 'chair'])).rejects.toThrow(/earlier call failed/);
      })
      .catch((x: unknown) => x);
    expect(caught).toBeInstanceOf(ValidationError);
    expect(e).toBe(caught);
    expect((e as ValidationError).field).toBe('priority');
    expect(await orders()).toEqual([]);
    expect(await counts()).toEqual([]);
    // enqueueMany validates like rp.enqueueMany, fields named by index
    const many = await rp
      .withTransaction((tx) => tx.enqueueMany([{ command: 'demo.echo' }, { command: 'no.such.handler' }]))
      .catch((x: unknown) => x);
    expect(many).toBeInstanceOf(ValidationError);
    expect((many as ValidationError).field).toMatch(/^tasks\.1/);
    expect(await counts()).toEqual([]);
  });

  it('a pool here and a writer on another connection wait while it is open; none of their work is rolled back', async () => {
    const N = 40;
    const before = await rp.enqueueMany(Array.from({ length: N }, (_, i) => ({ command: 'demo.sleep', payload: { ms: 40 + (i % 3) } })));
    const pool = rp.createPool({ concurrency: 4, pollMs: 20, heartbeatMs: 20 });
    pools.push(pool);
    const other = await openReadpast({ url });
    others.push(other);
    await pool.start();
    await until(
      () => readModelOf(rp).countsByQueue(),
      (c) => c.some((q) => q.running > 0),
    );
    let fromOther: Promise<{ token: string }> | null = null;
    let startedDuring = 0;
    await expect(
      rp.withTransaction(async (tx) => {
        await tx.execute('INSERT INTO orders (id, item) VALUES (?, ?)', [5, 'rolled back']);
        await tx.enqueue({ command: 'demo.echo', payload: 'rolled back' });
        // another connection (as another process would) writes meanwhile: it waits for the lock
        fromOther = other.enqueue({ command: 'demo.echo', payload: 'other' });
        const t0 = (await readModelOf(rp).countsByQueue()).reduce((a, c) => a + c.running + c.succeeded, 0);
        // the pool is mid-way: tasks are running and pending while the transaction holds the lock
        expect(t0).toBeGreaterThan(0);
        expect(t0).toBeLessThan(N);
        await sleep(700);
        startedDuring = (await readModelOf(rp).countsByQueue()).reduce((a, c) => a + c.running + c.succeeded, 0) - t0;
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    // nothing was claimed or settled while the transaction held the write lock (reads went on)
    expect(startedDuring).toBe(0);
    const { token: otherToken } = await fromOther!;
    const tokens = [...before.map((b) => b.token), otherToken];
    await until(
      async () => Promise.all(tokens.map((t) => rp.status(t))),
      (all) => all.every((s) => s.status === 'succeeded'),
      15_000,
    );
    // every task ran once: no claim or settlement of the pool was lost with the rollback
    for (const t of tokens) expect((await rp.status(t)).attempts).toBe(1);
    expect(await orders()).toEqual([]);
    expect(await counts()).toEqual([
      { queue: 'default', waiting: 0, pending: 0, claimed: 0, running: 0, succeeded: N + 1, dead: 0, cancelled: 0 },
    ]);
  });

  it('refuses a write on the store connection from inside the callback, a nested transaction, and statements that end it', async () => {
    await expect(rp.withTransaction(() => rp.enqueue({ command: 'demo.echo' }))).rejects.toThrow(/through its tx/);
    await expect(rp.withTransaction(() => rp.withTransaction(async () => 1))).rejects.toThrow(/do not nest/);
    await expect(rp.withTransaction((tx) => tx.execute('COMMIT'))).rejects.toThrow(ValidationError);
    // reads are fine inside
    expect(await rp.withTransaction(async () => (await readModelOf(rp).countsByQueue()).length)).toBe(0);
    expect(await counts()).toEqual([]);
    // work the callback leaves behind runs normally once the transaction has ended
    let later: Promise<unknown> | null = null;
    await rp.withTransaction(async () => {
      later = sleep(50).then(() => rp.enqueue({ command: 'demo.echo' }));
    });
    await expect(later).resolves.toMatchObject({ created: true });
    expect(await counts()).toEqual([
      { queue: 'default', waiting: 0, pending: 1, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
    ]);
  });

  it('refuses an external transaction on SQLite, and a timeout out of range', async () => {
    const e = await rp.enqueue({ command: 'demo.echo' }, { transaction: { begin() {} } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).field).toBe('transaction');
    for (const timeoutMs of [0, 1.5, 60_000]) {
      const t = await rp.withTransaction(async () => 1, { timeoutMs }).catch((x: unknown) => x);
      expect((t as ValidationError).field).toBe('timeoutMs');
    }
  });
});
