// Progress and log lines end to end on a real SQLite file: a pool runs handlers that log and report
// progress, read through the front door (Readpast.attemptOutput, what GET /api/tasks/{token}/logs
// answers) while they run and after; the bound per attempt; input checks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ATTEMPT_LINES, OutputFlusher } from '../engine/attempt-output';
import { HandlerRegistry, sleep } from '../engine/handlers';
import type { Pool } from '../engine/pool';
import type { Store } from '../engine/ports';
import { openStore } from './open';
import { Readpast } from './readpast';

let dir: string;
let store: Store;
let rp: Readpast;
let pools: Pool[];
let release: () => void;
let released: Promise<void>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-logs-'));
  store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
  released = new Promise<void>((r) => (release = r));
  const registry = new HandlerRegistry()
    .register('test.blocking', async (_payload, ctx) => {
      ctx.log('started');
      ctx.log({ rows: 3 });
      ctx.progress(25, 'loading');
      await released;
      ctx.log('finishing');
      ctx.progress(100, 'done');
      return 'ok';
    })
    .register('test.chatty', (payload: { n: number }, ctx) => {
      for (let i = 1; i <= payload.n; i++) ctx.log(`line ${i}`);
      return payload.n;
    });
  rp = new Readpast(store, { registry });
  pools = [];
});

afterEach(async () => {
  release();
  for (const p of pools) await p.stop(0);
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

function pool() {
  const p = rp.createPool({ concurrency: 2, heartbeatMs: 50, pollMs: 50, maintenance: false });
  pools.push(p);
  return p;
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; last value ${JSON.stringify(v)}`);
    await sleep(20);
  }
}

describe('progress and log lines', () => {
  it('are visible while the handler runs, and complete once it has finished', async () => {
    const { token } = await rp.enqueue({ command: 'test.blocking' });
    await pool().start();
    // flushed by the worker while the handler is still blocked
    const live = await until(
      () => rp.attemptOutput(token),
      (o) => o.lines.length >= 2 && o.progress !== null,
    );
    expect((await rp.status(token)).status).toBe('running');
    expect(live).toMatchObject({ attempt: 1, truncated: false, dropped: 0, next: 2 });
    expect(live.lines.map((l) => [l.seq, l.stream, l.line])).toEqual([
      [1, 'log', 'started'],
      [2, 'log', '{"rows":3}'],
    ]);
    expect(live.progress).toMatchObject({ percent: 25, message: 'loading' });
    expect(Number.isNaN(Date.parse(live.lines[0]!.at))).toBe(false);
    const running = await rp.running();
    expect(running.items.find((r) => r.token === token)?.progress).toMatchObject({ percent: 25, message: 'loading' });

    // a tail asks only for what is new
    expect((await rp.attemptOutput(token, { after: String(live.next) })).lines).toEqual([]);

    release();
    await until(
      () => rp.status(token),
      (s) => s.status === 'succeeded',
    );
    // the last lines were written before the settlement: there as soon as the task is done
    const tail = await rp.attemptOutput(token, { after: live.next });
    expect(tail.lines.map((l) => l.line)).toEqual(['finishing']);
    expect(tail.progress).toMatchObject({ percent: 100, message: 'done' });
    expect(tail.next).toBe(3);
    const first = await rp.attemptOutput(token, { attempt: '1' });
    expect(first.lines).toHaveLength(3);
  });

  it('keeps the last 1,000 of 1,200 lines logged in a tight loop, marked truncated', async () => {
    const { token } = await rp.enqueue({ command: 'test.chatty', payload: { n: 1200 } });
    await pool().start();
    await until(
      () => rp.status(token),
      (s) => s.status === 'succeeded',
    );
    const out = await rp.attemptOutput(token);
    expect(out.lines).toHaveLength(MAX_ATTEMPT_LINES);
    expect(out.lines[0]!.line).toBe('line 201');
    expect(out.lines.at(-1)!.line).toBe('line 1200');
    expect(out.truncated).toBe(true);
    expect(out.dropped).toBe(200);
  });

  it('a stale attempt’s writer is refused and stops; the attempt that owns the task writes', async () => {
    const { token } = await rp.enqueue({ command: 'test.blocking', maxAttempts: 3 });
    // attempt 1 claimed by a worker that then stops renewing its lease
    await store.worker.registerWorker({ workerId: 'stale', host: 'h', pid: 1, role: 'test' });
    const [stale] = await store.worker.claim([{ workerId: 'stale', session: 1 }], { leaseMs: 50 });
    expect(stale!.attempt).toBe(1);
    const writer = new OutputFlusher(store.worker, 60_000);
    const out = writer.openAttempt(stale!.id, 1, 'stale');
    out.log('log', 'before the lease ran out');
    await writer.flush();
    await sleep(150);
    await store.maintenance.rescueExpired();
    // attempt 2 runs in a pool and logs
    await pool().start();
    await until(
      () => rp.attemptOutput(token),
      (o) => o.attempt === 2 && o.lines.length >= 2,
    );
    out.log('log', 'stale line');
    out.report(99, 'stale');
    await writer.flush();
    expect(out.refused).toBe(true);
    out.log('log', 'dropped at once');
    expect(out.dirty).toBe(false);
    await writer.close(out);

    const first = await rp.attemptOutput(token, { attempt: 1 });
    expect(first.lines.map((l) => l.line)).toEqual(['before the lease ran out']);
    expect(first.progress).toBeNull();
    const second = await rp.attemptOutput(token, { attempt: 2 });
    expect(second.lines.map((l) => l.line)).toEqual(['started', '{"rows":3}']);
    expect(second.progress).toMatchObject({ percent: 25 });
  });

  it('a task that logged nothing has no lines and no progress; bad input is refused naming the field', async () => {
    const { token } = await rp.enqueue({ command: 'test.chatty', payload: { n: 0 } });
    await pool().start();
    await until(
      () => rp.status(token),
      (s) => s.status === 'succeeded',
    );
    expect(await rp.attemptOutput(token)).toEqual({ attempt: 1, lines: [], truncated: false, dropped: 0, progress: null, next: 0 });
    await expect(rp.attemptOutput('nope')).rejects.toMatchObject({ field: 'token' });
    await expect(rp.attemptOutput(token, { attempt: '0' })).rejects.toMatchObject({ field: 'attempt' });
    await expect(rp.attemptOutput(token, { after: '-1' })).rejects.toMatchObject({ field: 'after' });
    await expect(rp.attemptOutput('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ name: 'NotFoundError' });
  });
});
