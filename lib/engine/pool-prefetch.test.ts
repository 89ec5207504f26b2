// Claiming ahead: while attempts are short a pool claims more tasks than it has idle workers, each for the
// worker that will run it; every task runs once, by that worker; a stopping pool runs what it claimed ahead
// within its grace and gives back (pending, run at once) what has not started by then; one cancelled
// meanwhile is settled as cancelled, never run.
// Against a fake worker port.
import { describe, expect, it } from 'vitest';
import { HandlerRegistry } from './handlers';
import { Pool } from './pool';
import type { MaintenancePort, WorkerPort } from './ports';
import type { AttemptResult, ClaimedTask, HeartbeatResult, WorkerSlot } from './types';

const task = (id: number, slot: WorkerSlot): ClaimedTask => ({
  id,
  token: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
  queue: 'default',
  kind: 'handler',
  command: 'test.run',
  payload: { id },
  priority: 0,
  concurrencyKey: null,
  parents: [],
  attempt: 1,
  maxAttempts: 3,
  timeoutMs: null,
  backoffMs: 1000,
  workerId: slot.workerId,
  session: slot.session,
  createdAt: new Date(),
  runAfter: new Date(),
  startedAt: new Date(),
});

/** A store of `n` due tasks: claims fill slots in order, finishes are recorded. */
function fakeStore(n: number, beat?: (running: number[]) => HeartbeatResult) {
  let next = 1;
  const claims: WorkerSlot[][] = [];
  const claimed: ClaimedTask[] = [];
  const finished: AttemptResult[] = [];
  let session = 50;
  const worker: WorkerPort = {
    registerWorker: async () => ({ session: ++session, loginTime: new Date() }),
    deregisterWorker: async () => {},
    registerHandlers: async () => {},
    appendAttemptOutput: async (batch) => batch.map(() => true),
    heartbeat: async (input) => {
      const running = input.running.map((r) => r.taskId);
      return beat ? beat(running) : { owned: running, cancelRequested: [] };
    },
    claim: async (slots) => {
      claims.push(slots);
      const out: ClaimedTask[] = [];
      for (const s of slots) {
        if (next > n) break;
        out.push(task(next++, s));
      }
      claimed.push(...out);
      return out;
    },
    finish: async (results) => {
      finished.push(...results);
      return results.map(() => true);
    },
    runSql: async () => ({ rowsAffected: 0, rows: [] }),
    runProcedure: async () => null,
    nextRateOpening: async () => null,
    loadSteps: async () => ({ suspensions: 0, steps: [] }),
    recordStep: async () => true,
    transactionStep: async () => true,
    onWake: () => () => {},
  };
  return { worker, claims, claimed, finished };
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

const options = { heartbeatMs: 10, pollMs: 20, maintenance: false };

describe('pool prefetch', () => {
  it("defaults to the store's own prefetch (StoreCapabilities), an option overriding it", () => {
    const ports = { worker: {} as WorkerPort, maintenance: {} as MaintenancePort, description: 'fake' };
    const registry = new HandlerRegistry();
    expect(new Pool(ports, registry).opts.prefetch).toBe(0);
    expect(new Pool({ ...ports, capabilities: { prefetch: 252 } }, registry).opts.prefetch).toBe(252);
    expect(new Pool({ ...ports, capabilities: { prefetch: 252 } }, registry, { prefetch: 3 }).opts.prefetch).toBe(3);
  });

  it('claims ahead while attempts are short; every task runs once, on the worker it was claimed for', async () => {
    const store = fakeStore(500);
    const ran: { id: number; workerId: string }[] = [];
    const registry = new HandlerRegistry().register('test.run', (payload, ctx) => {
      ran.push({ id: (payload as { id: number }).id, workerId: ctx.workerId });
      return null;
    });
    const pool = new Pool({ worker: store.worker, maintenance: {} as MaintenancePort, description: 'fake' }, registry, {
      ...options,
      concurrency: 4,
      prefetch: 20,
    });
    await pool.start();
    await until(() => store.finished.length === 500);
    await pool.stop();
    // the first claim (nothing known about run times) asks for one task per worker, later ones for more
    expect(store.claims[0]).toHaveLength(4);
    expect(Math.max(...store.claims.map((c) => c.length))).toBe(24);
    expect(ran.map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    const claimedBy = new Map(store.claimed.map((t) => [t.id, t.workerId]));
    for (const r of ran) expect(r.workerId).toBe(claimedBy.get(r.id));
    for (const f of store.finished) {
      expect(f.settlement.kind).toBe('succeeded');
      expect(f.workerId).toBe(claimedBy.get(f.taskId));
    }
  });

  it('never claims ahead for attempts that take long', async () => {
    const store = fakeStore(12);
    const registry = new HandlerRegistry().register('test.run', () => new Promise((r) => setTimeout(r, 10)));
    const pool = new Pool({ worker: store.worker, maintenance: {} as MaintenancePort, description: 'fake' }, registry, {
      ...options,
      concurrency: 2,
      prefetch: 20,
    });
    await pool.start();
    await until(() => store.finished.length === 12);
    await pool.stop();
    expect(Math.max(...store.claims.map((c) => c.length))).toBeLessThanOrEqual(2);
  });

  /** A pool of one worker holding task 10 (blocked on `gate`) and a few tasks claimed ahead behind it. */
  async function blockedPool(cancel: () => number[]) {
    const store = fakeStore(100, (running) => ({ owned: running, cancelRequested: cancel() }));
    let gate!: () => void;
    const held = new Promise<void>((r) => (gate = r));
    const ran: number[] = [];
    const registry = new HandlerRegistry().register('test.run', async (payload, ctx) => {
      const id = (payload as { id: number }).id;
      ran.push(id);
      // the first few run at once (the pool learns they are short), then one blocks its worker
      if (id === 10)
        await Promise.race([held, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)))]);
    });
    const pool = new Pool({ worker: store.worker, maintenance: {} as MaintenancePort, description: 'fake' }, registry, {
      ...options,
      concurrency: 1,
      prefetch: 5,
    });
    await pool.start();
    await until(() => ran.includes(10));
    // task 10 runs; those claimed after it wait in the worker's buffer
    const waiting = store.claimed.filter((t) => t.id > 10).map((t) => t.id);
    expect(waiting.length).toBeGreaterThan(1);
    return { store, pool, ran, waiting, gate };
  }

  it('runs what it claimed ahead when it stops, within the grace; a cancelled one is settled without running', async () => {
    let cancel: number[] = [];
    const { store, pool, ran, waiting, gate } = await blockedPool(() => cancel);
    cancel = [waiting[0]!];
    await until(() => store.finished.some((f) => f.taskId === waiting[0]));
    expect(store.finished.find((f) => f.taskId === waiting[0])!.settlement.kind).toBe('cancelled');
    const stopped = pool.stop(5_000);
    const opened = Date.now();
    gate();
    await stopped;
    // each claimed ahead says when its worker really began it (after task 10 let go of the worker); the first
    // task, started as soon as it was claimed, says nothing (its claim is its start, on the store's clock)
    for (const id of waiting.slice(1)) {
      const f = store.finished.find((x) => x.taskId === id)!;
      expect(f.startedAt!.getTime()).toBeGreaterThanOrEqual(opened);
    }
    expect(store.finished.find((x) => x.taskId === 1)!.startedAt).toBeUndefined();
    // nothing given back: the rest ran, once each, and no attempt was spent on a task that never started
    for (const id of waiting.slice(1)) {
      expect(store.finished.filter((x) => x.taskId === id).map((f) => f.settlement.kind)).toEqual(['succeeded']);
      expect(ran.filter((x) => x === id)).toHaveLength(1);
    }
    expect(ran).not.toContain(waiting[0]);
    expect(store.finished.find((f) => f.taskId === 10)!.settlement.kind).toBe('succeeded');
    // every claimed task was settled exactly once
    expect(store.finished.map((f) => f.taskId).sort((a, b) => a - b)).toEqual(store.claimed.map((t) => t.id).sort((a, b) => a - b));
  });

  it('gives back what has not started when the grace runs out, and cuts the running one short', async () => {
    const { store, pool, ran, waiting } = await blockedPool(() => []);
    const began = Date.now();
    await pool.stop(150);
    expect(Date.now() - began).toBeGreaterThanOrEqual(140);
    expect(store.finished.find((f) => f.taskId === 10)!.settlement).toMatchObject({ kind: 'retry', outcome: 'abandoned' });
    for (const id of waiting) {
      const f = store.finished.filter((x) => x.taskId === id);
      expect(f).toHaveLength(1);
      expect(f[0]!.settlement).toMatchObject({ kind: 'retry', outcome: 'abandoned' });
      expect((f[0]!.settlement as { error: { message: string } }).error.message).toMatch(/before the prefetched task started/);
      expect((f[0]!.settlement as { runAfter: Date }).runAfter.getTime()).toBeLessThanOrEqual(Date.now());
      expect(ran).not.toContain(id);
    }
    expect(store.finished.map((f) => f.taskId).sort((a, b) => a - b)).toEqual(store.claimed.map((t) => t.id).sort((a, b) => a - b));
  });
});
