// A heartbeat slower than half the lease is logged once, with the cause the pool can see: time in the
// database (the store says how long it worked on it) or before it (waiting for a connection or the lock).
// Against a fake worker port whose heartbeats take as long as the test says. The margins hold on a busy machine:
// a slow beat is 400 ms against a 300 ms threshold, a fast one would have to stall 300 ms to count as slow, and
// the fake says the database worked for as long as it really waited (a timer fires late under load: a 70 ms
// wait measured 142 ms, and a fixed 65 ms of server time then read as a connection wait).
import { describe, expect, it } from 'vitest';
import { HandlerRegistry } from './handlers';
import type { Logger } from './logger';
import { Pool, slowBeatCause } from './pool';
import type { MaintenancePort, WorkerPort } from './ports';

/** The pool's lease: a beat over 300 ms is slow, one of 150 ms or less is back in time. */
const LEASE_MS = 600;
/** How long a slow beat of the fake takes. */
const SLOW_MS = 400;

function fakePool(beat: () => { delayMs: number; serverMs?: number | 'all' }) {
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  let beats = 0;
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (obj, msg) => errors.push({ obj: obj as Record<string, unknown>, msg: msg ?? '' }),
  };
  const worker: WorkerPort = {
    registerWorker: async () => ({ session: 51, loginTime: new Date() }),
    deregisterWorker: async () => {},
    registerHandlers: async () => {},
    appendAttemptOutput: async (batch) => batch.map(() => true),
    heartbeat: async () => {
      const b = beat();
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, b.delayMs));
      // 'all': the database worked for the whole wait, however long the timer really took
      const serverMs = b.serverMs === 'all' ? Math.floor(performance.now() - t0) : b.serverMs;
      beats++;
      return { owned: [], cancelRequested: [], ...(serverMs === undefined ? {} : { serverMs }) };
    },
    claim: async () => [],
    finish: async (results) => results.map(() => true),
    runSql: async () => ({ rowsAffected: 0, rows: [] }),
    runProcedure: async () => null,
    nextRateOpening: async () => null,
    loadSteps: async () => ({ suspensions: 0, steps: [] }),
    recordStep: async () => true,
    transactionStep: async () => true,
    onWake: () => () => {},
  };
  const pool = new Pool({ worker, maintenance: {} as MaintenancePort, description: 'fake' }, new HandlerRegistry(), {
    concurrency: 1,
    heartbeatMs: 5,
    leaseMs: LEASE_MS,
    pollMs: 10_000,
    maintenance: false,
    logger,
  });
  const until = async (n: number) => {
    const target = beats + n;
    const deadline = Date.now() + 30_000;
    while (beats < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(beats).toBeGreaterThanOrEqual(target);
  };
  return { pool, errors, until };
}

describe('a heartbeat slower than half the lease', () => {
  it('is logged once per slow spell, with its cause: server time, then a connection wait', async () => {
    let mode: 'slow-server' | 'fast' | 'slow-wait' = 'slow-server';
    const { pool, errors, until } = fakePool(() =>
      mode === 'slow-server'
        ? { delayMs: SLOW_MS, serverMs: 'all' }
        : mode === 'slow-wait'
          ? { delayMs: SLOW_MS, serverMs: 2 }
          : { delayMs: 0, serverMs: 0 },
    );
    await pool.start();
    await until(4);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.obj).toMatchObject({ leaseMs: LEASE_MS, cause: 'server' });
    expect(errors[0]!.msg).toMatch(/^heartbeat slower than half the lease \(\d+ ms of 600\): server time: \d+ ms in the database/);
    mode = 'fast';
    await until(3);
    expect(errors).toHaveLength(1);
    mode = 'slow-wait';
    await until(4);
    expect(errors).toHaveLength(2);
    expect(errors[1]!.obj).toMatchObject({ cause: 'connection' });
    expect(errors[1]!.msg).toMatch(/connection wait: \d+ ms before the database worked on it/);
    await pool.stop(0);
  });

  it('says so when the store does not tell where the time went', () => {
    expect(slowBeatCause(80, undefined).kind).toBe('unknown');
    expect(slowBeatCause(80, 40).kind).toBe('server');
    expect(slowBeatCause(80, 39).kind).toBe('connection');
  });
});
