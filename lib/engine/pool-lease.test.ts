// The pool keeps renewing the lease of an attempt it has settled but whose result the store has not
// recorded yet: a store refuses a finish whose lease lapsed (invariant 7), so a result reached in time
// must not expire while its finish waits (a slow or unavailable store). Against a fake worker port.
import { describe, expect, it } from 'vitest';
import { HandlerRegistry } from './handlers';
import { Pool } from './pool';
import type { MaintenancePort, WorkerPort } from './ports';
import type { AttemptResult, ClaimedTask, HeartbeatInput } from './types';

const task = (workerId: string, session: number): ClaimedTask => ({
  id: 7,
  token: '00000000-0000-4000-8000-000000000007',
  queue: 'default',
  kind: 'handler',
  command: 'test.quick',
  payload: null,
  priority: 0,
  concurrencyKey: null,
  parents: [],
  attempt: 1,
  maxAttempts: 3,
  timeoutMs: null,
  backoffMs: 1000,
  workerId,
  session,
  createdAt: new Date(),
  runAfter: new Date(),
  startedAt: new Date(),
});

describe('pool leases', () => {
  it('renews the lease of a settled attempt until the store has recorded its result', async () => {
    const beats: HeartbeatInput[] = [];
    const finishes: AttemptResult[][] = [];
    let release: (ok: boolean[]) => void = () => {};
    let claimed = false;
    const worker: WorkerPort = {
      registerWorker: async () => ({ session: 51, loginTime: new Date() }),
      deregisterWorker: async () => {},
      registerHandlers: async () => {},
      appendAttemptOutput: async (batch) => batch.map(() => true),
      heartbeat: async (input) => {
        beats.push(input);
        return { owned: input.running.map((r) => r.taskId), cancelRequested: [] };
      },
      claim: async (slots) => {
        if (claimed) return [];
        claimed = true;
        return [task(slots[0]!.workerId, slots[0]!.session)];
      },
      finish: (results) => {
        finishes.push(results);
        return new Promise<boolean[]>((resolve) => {
          release = resolve;
        });
      },
      runSql: async () => ({ rowsAffected: 0, rows: [] }),
      runProcedure: async () => null,
      nextRateOpening: async () => null,
      loadSteps: async () => ({ suspensions: 0, steps: [] }),
      recordStep: async () => true,
      transactionStep: async () => true,
      onWake: () => () => {},
    };
    const maintenance = {} as MaintenancePort;
    const registry = new HandlerRegistry().register('test.quick', () => 'done');
    const pool = new Pool({ worker, maintenance, description: 'fake' }, registry, {
      concurrency: 1,
      heartbeatMs: 10,
      pollMs: 10_000,
      maintenance: false,
    });
    await pool.start();
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
      expect(ok()).toBe(true);
    };
    // the attempt ran and its finish is in flight (held open by the fake store)
    await until(() => finishes.length === 1);
    expect(finishes[0]![0]).toMatchObject({ taskId: 7, attempt: 1, settlement: { kind: 'succeeded', result: 'done' } });
    const seen = beats.length;
    await until(() => beats.length > seen);
    expect(beats[beats.length - 1]!.running).toEqual([{ taskId: 7, workerId: finishes[0]![0]!.workerId, attempt: 1 }]);
    // recorded: no more renewals for it
    release([true]);
    await new Promise((r) => setTimeout(r, 20));
    const after = beats.length;
    await until(() => beats.length > after);
    expect(beats[beats.length - 1]!.running).toEqual([]);
    await pool.stop(0);
  });
});
