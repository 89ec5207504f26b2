// Claiming ahead: while attempts are short a pool claims, besides its idle slots, a bounded lookahead into one local
// queue; whichever slot frees first takes the oldest (none waits behind a long task), its attempt starting then —
// its start sent with its end, or alone once it has run START_WRITE_MS. What no slot starts soon is given back with
// nothing counted, and all of it first when the pool stops. A task the store no longer gives the pool (cancelled)
// leaves the queue unrun. Against a fake worker port that keeps claimed-ahead tasks as the stores do.
import { describe, expect, it, vi } from 'vitest';
import { HandlerRegistry } from './handlers';
import { Pool } from './pool';
import { AHEAD_MAX_MS } from './pool-prefetch';
import type { MaintenancePort, WorkerPort } from './ports';
import type { AttemptResult, ClaimedTask, ClaimOptions, HeartbeatResult, WorkerSlot } from './types';

const task = (id: number, slot: WorkerSlot, ahead: boolean): ClaimedTask => ({
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
  ...(ahead && { ahead: true }),
});

interface Claim {
  slots: WorkerSlot[];
  ahead: number;
}

/** A store of `n` due tasks: claims fill the slots, then claim ahead; what the pool records is kept. */
function fakeStore(n: number, beat?: (running: number[]) => HeartbeatResult, delayClaimMs = 0) {
  let next = 1;
  const claims: Claim[] = [];
  const claimed: ClaimedTask[] = [];
  const finished: AttemptResult[] = [];
  let session = 50;
  /** afterClaim: told what each claim answers, as it answers */
  const hooks: { afterClaim?: (out: ClaimedTask[]) => void } = {};
  const worker: WorkerPort = {
    registerWorker: async () => ({ session: ++session, loginTime: new Date() }),
    deregisterWorker: async () => {},
    registerHandlers: async () => {},
    appendAttemptOutput: async (batch) => batch.map(() => true),
    heartbeat: async (input) => {
      const running = input.running.map((r) => r.taskId);
      return beat ? beat(running) : { owned: running, cancelRequested: [] };
    },
    claim: async (slots, opts: ClaimOptions) => {
      claims.push({ slots, ahead: opts.ahead?.count ?? 0 });
      if (delayClaimMs) await new Promise((r) => setTimeout(r, delayClaimMs));
      const out: ClaimedTask[] = [];
      for (const s of slots) if (next <= n) out.push(task(next++, s, false));
      for (let i = 0; i < (opts.ahead?.count ?? 0) && next <= n; i++) out.push(task(next++, opts.ahead!.claimer, true));
      // what the claim answered, as it answered it (the pool makes a claimed-ahead task its runner's when it starts it)
      claimed.push(...out.map((t) => ({ ...t })));
      hooks.afterClaim?.(out);
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
  /** the results that end an attempt or give a task back (not the `started` ones) */
  const settled = () => finished.filter((f) => f.settlement.kind !== 'started');
  return { worker, claims, claimed, finished, settled, hooks };
}

const until = async (ok: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

const options = { heartbeatMs: 10, pollMs: 20, maintenance: false };

/**
 * The pool's clock (performance.now) running `factor` times slower than the real one, so that a no-op attempt
 * measures under PREFETCH_BELOW_MS (2 ms) even on a machine busy enough to pause this process mid-attempt; a
 * pool that measures its attempts as long rightly claims nothing ahead. Returns the restore.
 */
function slowClock(factor: number): () => void {
  const real = performance.now.bind(performance);
  const t0 = real();
  const spy = vi.spyOn(performance, 'now').mockImplementation(() => t0 + (real() - t0) / factor);
  return () => spy.mockRestore();
}
const ports = (worker: WorkerPort) => ({ worker, maintenance: {} as MaintenancePort, description: 'fake' });

/** A handler that blocks the ids in `block` until `open()` (or its attempt is aborted). */
function blocking(block: Set<number>, onStart?: (id: number) => void) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const ran: { id: number; workerId: string; at: number }[] = [];
  const registry = new HandlerRegistry().register('test.run', async (payload, ctx) => {
    const id = (payload as { id: number }).id;
    ran.push({ id, workerId: ctx.workerId, at: Date.now() });
    onStart?.(id);
    if (block.has(id))
      await Promise.race([gate, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)))]);
  });
  return { registry, ran, open: () => open() };
}

describe('pool prefetch', () => {
  it("defaults to the store's own prefetch (StoreCapabilities), an option overriding it", () => {
    const p = { worker: {} as WorkerPort, maintenance: {} as MaintenancePort, description: 'fake' };
    const registry = new HandlerRegistry();
    expect(new Pool(p, registry).opts.prefetch).toBe(0);
    expect(new Pool({ ...p, capabilities: { prefetch: 252 } }, registry).opts.prefetch).toBe(252);
    expect(new Pool({ ...p, capabilities: { prefetch: 252 } }, registry, { prefetch: 3 }).opts.prefetch).toBe(3);
  });

  it('claims ahead while attempts are short; every task runs once, its start recorded by the slot that ran it', async () => {
    const store = fakeStore(500);
    const { registry, ran } = blocking(new Set());
    const pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 4, prefetch: 20 });
    await pool.start();
    await until(() => store.settled().length === 500);
    const slots = new Set(pool.workerIds());
    await pool.stop();
    // the first claim (nothing known about run times) asks for the idle slots only, later ones for a lookahead too,
    // never more than the prefetch beyond the slots
    expect(store.claims[0]).toEqual({ slots: expect.any(Array), ahead: 0 });
    expect(store.claims[0]!.slots).toHaveLength(4);
    expect(store.claims.some((c) => c.ahead > 0)).toBe(true);
    for (const c of store.claims) expect(c.ahead).toBeLessThanOrEqual(20);
    expect(ran.map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    const byId = new Map(store.claimed.map((t) => [t.id, t]));
    const ranOn = new Map(ran.map((r) => [r.id, r.workerId]));
    for (const f of store.settled()) {
      expect(f.settlement.kind).toBe('succeeded');
      expect(f.workerId).toBe(ranOn.get(f.taskId));
      expect(slots.has(f.workerId)).toBe(true);
      const t = byId.get(f.taskId)!;
      if (!t.ahead) continue;
      // a task claimed ahead: its start goes with its end, fenced on its claim, unless it was sent alone before
      const alone = store.finished.find((x) => x.taskId === f.taskId && x.settlement.kind === 'started');
      const start = f.start ?? alone?.start;
      expect(start).toMatchObject({ claimer: t.workerId, session: expect.any(Number) });
      expect(start!.at.getTime()).toBeGreaterThanOrEqual(t.startedAt.getTime());
    }
  });

  it('never claims ahead for attempts that take long', async () => {
    const store = fakeStore(12);
    const registry = new HandlerRegistry().register('test.run', () => new Promise((r) => setTimeout(r, 10)));
    const pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 2, prefetch: 20 });
    await pool.start();
    await until(() => store.settled().length === 12);
    await pool.stop();
    expect(Math.max(...store.claims.map((c) => c.ahead))).toBe(0);
  });

  it('no task waits behind a long one: the free slot takes what was claimed ahead', async () => {
    const store = fakeStore(300);
    const { registry, ran, open } = blocking(new Set([30]));
    const pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 2, prefetch: 50 });
    await pool.start();
    // every other task runs while task 30 holds its slot
    await until(() => store.settled().length === 299);
    expect(store.settled().some((f) => f.taskId === 30)).toBe(false);
    expect(ran.filter((r) => r.id === 30)).toHaveLength(1);
    open();
    await until(() => store.settled().length === 300);
    await pool.stop();
  });

  it("records a claimed task's start while it still runs, then its end without it", async () => {
    const store = fakeStore(40);
    const { registry, open } = blocking(new Set([30]));
    const pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 2, prefetch: 50 });
    await pool.start();
    await until(() => store.finished.some((f) => f.taskId === 30 && f.settlement.kind === 'started'));
    const t30 = store.claimed.find((t) => t.id === 30)!;
    expect(t30.ahead).toBe(true);
    const started = store.finished.find((f) => f.taskId === 30)!;
    expect(started.start).toMatchObject({ claimer: t30.workerId });
    open();
    await until(() => store.settled().some((f) => f.taskId === 30));
    const end = store.settled().find((f) => f.taskId === 30)!;
    expect(end.settlement.kind).toBe('succeeded');
    expect(end.start).toBeUndefined();
    await pool.stop();
  });

  it('gives back, unrun, what it claimed ahead once every slot runs long, and takes no more meanwhile', async () => {
    const store = fakeStore(200);
    const { registry, ran, open } = blocking(new Set([20, 21]));
    const pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 2, prefetch: 50 });
    await pool.start();
    await until(() => ran.some((r) => r.id === 20) && ran.some((r) => r.id === 21));
    const queued = store.claimed.filter((t) => t.ahead && !ran.some((r) => r.id === t.id)).map((t) => t.id);
    expect(queued.length).toBeGreaterThan(0);
    await until(() => queued.every((id) => store.settled().some((f) => f.taskId === id)), AHEAD_MAX_MS * 10);
    for (const id of queued) {
      const f = store.settled().filter((x) => x.taskId === id);
      expect(f).toHaveLength(1);
      expect(f[0]!.settlement.kind).toBe('given_back');
      // fenced on its claim: the claimer's id, no start
      expect(f[0]!.workerId).toBe(store.claimed.find((t) => t.id === id)!.workerId);
      expect(f[0]!.start).toBeUndefined();
      expect(ran.some((r) => r.id === id)).toBe(false);
    }
    expect(pool.claimedAhead).toBe(0);
    const claimsBefore = store.claims.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(store.claims.slice(claimsBefore).every((c) => c.ahead === 0 && c.slots.length === 0)).toBe(true);
    open();
    await pool.stop();
  });

  it('gives back what waits in its local queue first when it stops, then lets the running one finish', async () => {
    const store = fakeStore(100);
    // Stopped as soon as tasks wait in the local queue while task 10 runs: when 10 starts with others of its claim
    // queued behind it, or when a claim ahead lands while it runs (its answer reaches the pool in the same turn of
    // the event loop, before any timer). Tasks claimed ahead are given back on a timer 50 to 300 ms later: a window
    // that polling from the test can miss on a busy machine.
    let pool!: Pool;
    let queuedBehindTen!: () => void;
    const waiting = new Promise<void>((r) => (queuedBehindTen = r));
    const { registry, ran, open } = blocking(new Set([10]), (id) => {
      if (id === 10 && pool.claimedAhead > 0) queuedBehindTen();
    });
    store.hooks.afterClaim = (out) => {
      if (ran.some((r) => r.id === 10) && out.some((t) => t.ahead))
        setImmediate(() => {
          if (pool.claimedAhead > 0) queuedBehindTen();
        });
    };
    // one slot: what is claimed ahead waits while task 10 holds it
    pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 1, prefetch: 5 });
    const restoreClock = slowClock(20);
    try {
      await pool.start();
      await waiting;
    } finally {
      restoreClock();
    }
    expect(pool.claimedAhead).toBeGreaterThan(0);
    const queued = store.claimed.filter((t) => t.id > 10 && !store.settled().some((f) => f.taskId === t.id)).map((t) => t.id);
    expect(queued.length).toBeGreaterThan(0);
    const stopped = pool.stop(5_000);
    await until(() => queued.every((id) => store.settled().some((f) => f.taskId === id)));
    // given back before the running task ended
    expect(store.settled().some((f) => f.taskId === 10)).toBe(false);
    for (const id of queued) expect(store.settled().find((f) => f.taskId === id)!.settlement.kind).toBe('given_back');
    open();
    await stopped;
    expect(store.settled().find((f) => f.taskId === 10)!.settlement.kind).toBe('succeeded');
    expect(ran.some((r) => queued.includes(r.id))).toBe(false);
  });

  it('drops, unrun, a task claimed ahead that the store no longer gives it (cancelled at once by an operator)', async () => {
    // The task is picked while it waits in the local queue behind task 10 (as the stop test above finds that
    // moment, from the pool's own turns: polling for it can miss the window on a busy machine), and the store's
    // heartbeats stop owning it. It must leave the queue unrun — dropped, not given back by the timer: the pool's
    // clock runs 20 times slower meanwhile, so nothing claimed ahead is given back for 6 s.
    let pool!: Pool;
    let cancelled: number | null = null;
    let told = false;
    let dropped!: () => void;
    const gone = new Promise<void>((r) => (dropped = r));
    const store = fakeStore(100, (running) => {
      if (cancelled !== null && running.includes(cancelled)) told = true;
      // a beat after the one that said so no longer renews it: the pool holds it no more
      else if (told) dropped();
      return { owned: running.filter((id) => id !== cancelled), cancelRequested: [] };
    });
    const pick = () => {
      if (cancelled !== null) return;
      const done = new Set(store.settled().map((f) => f.taskId));
      const queued = store.claimed.filter((t) => t.id > 10 && t.ahead && !done.has(t.id));
      if (queued.length) cancelled = queued[0]!.id;
    };
    const { registry, ran, open } = blocking(new Set([10]), (id) => {
      if (id === 10 && pool.claimedAhead > 0) pick();
    });
    store.hooks.afterClaim = (out) => {
      if (ran.some((r) => r.id === 10) && out.some((t) => t.ahead)) pick();
    };
    pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 1, prefetch: 5 });
    const restoreClock = slowClock(20);
    try {
      await pool.start();
      await Promise.race([gone, new Promise((_, reject) => setTimeout(() => reject(new Error('still renewed 20 s on')), 20_000))]);
    } finally {
      restoreClock();
    }
    expect(cancelled).not.toBeNull();
    open();
    await pool.stop();
    expect(ran.some((r) => r.id === cancelled)).toBe(false);
    // dropped: the store owns it, the pool reports nothing of it (no attempt, no give-back)
    expect(store.finished.filter((f) => f.taskId === cancelled)).toEqual([]);
  });
});

describe('pool late claims', () => {
  const logged: { obj: unknown; msg: string }[] = [];
  const logger = {
    debug() {},
    info() {},
    warn: (obj: unknown, msg: string) => logged.push({ obj, msg }),
    error() {},
  };

  it('never starts a task whose claim came back with too little of its lease left: gives it back, logs the round trip', async () => {
    logged.length = 0;
    const store = fakeStore(3, undefined, 800);
    const { registry, ran } = blocking(new Set());
    // a lease of 1 s: a round trip of 800 ms leaves less than its margin (a quarter of it, or two heartbeats)
    const pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 3, leaseMs: 1000, logger });
    await pool.start();
    await until(() => store.settled().length === 3);
    await pool.stop();
    expect(ran).toHaveLength(0);
    for (const f of store.settled()) expect(f.settlement.kind).toBe('given_back');
    const warn = logged.find((l) => /safe margin/.test(l.msg))!;
    expect(warn.obj).toMatchObject({ leaseMs: 1000, marginMs: 250, rttMs: expect.any(Number) });
    expect((warn.obj as { rttMs: number }).rttMs).toBeGreaterThanOrEqual(790);
  });

  it('drops a task whose lease lapsed before its claim came back (the rescue owns it)', async () => {
    logged.length = 0;
    const store = fakeStore(2, undefined, 250);
    const { registry, ran } = blocking(new Set());
    const pool = new Pool(ports(store.worker), registry, { ...options, concurrency: 2, leaseMs: 200, logger });
    await pool.start();
    await until(() => logged.some((l) => /lapsed/.test(l.msg)));
    await pool.stop();
    expect(ran).toHaveLength(0);
    expect(store.settled()).toHaveLength(0);
  });
});
