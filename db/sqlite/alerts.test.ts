// Three stores on one SQLite file (as three processes would open it) judge the same rules at once:
// each firing is recorded once, with one delivery task; a dead task is reported once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALERT_QUEUE } from '../../lib/engine/alert-types';
import { openSqliteStore, type SqliteStore } from './store';

let dir: string;
let stores: SqliteStore[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-alerts-'));
  const file = join(dir, 'db.sqlite');
  stores = [];
  for (let i = 0; i < 3; i++) stores.push(await openSqliteStore(file));
});

afterEach(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const rule = {
  url: 'http://127.0.0.1:9/hook',
  secret: null,
  format: 'json' as const,
  dedupMs: 600_000,
  enabled: true,
};

describe('alerts across processes', () => {
  it('three evaluations at once fire each (rule, key) once', async () => {
    const [a] = stores;
    await a!.commands.createAlertRule({ ...rule, name: 'nobody', kind: 'no_worker', params: {} }, 't');
    await a!.commands.enqueue({ kind: 'handler', command: 'demo.echo', queue: 'orders', payload: null });
    await a!.commands.enqueue({ kind: 'handler', command: 'demo.echo', queue: 'billing', payload: null });
    for (let round = 0; round < 3; round++) {
      const fired = (await Promise.all(stores.map((s) => s.maintenance.evaluateAlerts()))).flat();
      expect(fired.map((f) => f.dedupKey).sort()).toEqual(round === 0 ? ['no_worker:billing', 'no_worker:orders'] : []);
    }
    const firings = await a!.reads.listAlertFirings({ limit: 10 });
    expect(firings.items).toHaveLength(2);
    const deliveries = await a!.reads.listTasks({ queue: ALERT_QUEUE, limit: 10 });
    expect(deliveries.items).toHaveLength(2);
  });

  it('a dead task is reported once however many processes read past it', async () => {
    const [a] = stores;
    const created = await a!.commands.createAlertRule({ ...rule, name: 'dead', kind: 'task_dead', params: {} }, 't');
    if (created === 'exists') throw new Error('exists');
    const { session } = await a!.worker.registerWorker({ workerId: 'w1', host: 'h', pid: 1, role: 'test' });
    const slot = { workerId: 'w1', session };
    const { token } = await a!.commands.enqueue({ kind: 'handler', command: 'demo.fail', queue: 'orders', payload: null });
    const [c] = await a!.worker.claim([slot], { leaseMs: 60_000 });
    await a!.worker.finish([
      {
        taskId: c!.id,
        workerId: 'w1',
        attempt: 1,
        settlement: { kind: 'dead', outcome: 'failed', error: { number: null, message: 'no', detail: null } },
      },
    ]);
    // read only once the settlement is DEAD_LAG_MS old
    await new Promise((r) => setTimeout(r, 2_100));
    const fired = (await Promise.all(stores.map((s) => s.maintenance.evaluateAlerts()))).flat();
    expect(fired).toHaveLength(1);
    expect((await a!.reads.listAlertFirings({ limit: 5 })).items[0]!.message).toContain(token);
    expect((await Promise.all(stores.map((s) => s.maintenance.evaluateAlerts()))).flat()).toEqual([]);
  });
});
