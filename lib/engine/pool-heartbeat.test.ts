// A heartbeat slower than half the lease is logged once, with the cause the pool can see: time in the
// database (the store says how long it worked on it) or before it (waiting for a connection or the lock).
// Against a fake worker port whose heartbeats take as long as the test says.
import { describe, expect, it } from 'vitest';
import { HandlerRegistry } from './handlers';
import type { Logger } from './logger';
import { Pool, slowBeatCause } from './pool';
import type { MaintenancePort, WorkerPort } from './ports';

function fakePool(beat: () => { delayMs: number; serverMs?: number }) {
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
      await new Promise((r) => setTimeout(r, b.delayMs));
      beats++;
      return { owned: [], cancelRequested: [], ...(b.serverMs === undefined ? {} : { serverMs: b.serverMs }) };
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
    leaseMs: 100,
    pollMs: 10_000,
    maintenance: false,
    logger,
  });
  const until = async (n: number) => {
    const target = beats + n;
    for (let i = 0; i < 400 && beats < target; i++) await new Promise((r) => setTimeout(r, 5));
    expect(beats).toBeGreaterThanOrEqual(target);
  };
  return { pool, errors, until };
}

describe('a heartbeat slower than half the lease', () => {
  it('is logged once per slow spell, with its cause: server time, then a connection wait', async () => {
    let mode: 'slow-server' | 'fast' | 'slow-wait' = 'slow-server';
    const { pool, errors, until } = fakePool(() =>
      mode === 'slow-server'
        ? { delayMs: 70, serverMs: 65 }
        : mode === 'slow-wait'
          ? { delayMs: 70, serverMs: 2 }
          : { delayMs: 0, serverMs: 0 },
    );
    await pool.start();
    await until(4);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.obj).toMatchObject({ leaseMs: 100, cause: 'server' });
    expect(errors[0]!.msg).toMatch(/^heartbeat slower than half the lease \(\d+ ms of 100\): server time: 65 ms in the database/);
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
