// Workers (registration, sessions, heartbeats, lost workers), handler names, task kinds and `sql` tasks.
import { describe, expect, it } from 'vitest';
import { LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';

export function workerTests(factory: StoreFactory) {
  describe('workers', () => {
    const h = useStore(factory);

    it('registers workers with distinct sessions and shows them', async () => {
      const { store } = h();
      const before = Date.now();
      const sessions = [];
      for (const id of ['wa', 'wb', 'wc']) {
        const s = await store.worker.registerWorker({ workerId: id, host: `host-${id}`, pid: 100, role: id === 'wc' ? 'web' : 'cli' });
        expect(Number.isInteger(s.session)).toBe(true);
        expect(s.loginTime).toBeInstanceOf(Date);
        sessions.push(s.session);
      }
      expect(new Set(sessions).size).toBe(3);

      const workers = await store.reads.listWorkers();
      expect(workers.map((w) => w.workerId).sort()).toEqual(['wa', 'wb', 'wc']);
      const wc = workers.find((w) => w.workerId === 'wc')!;
      expect(wc).toMatchObject({ host: 'host-wc', pid: 100, role: 'web', session: sessions[2], state: 'running', currentTask: null });
      expect(wc.startedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(wc.heartbeatAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    });

    it('records the queues a worker claims from (null: every queue); a re-registration replaces them', async () => {
      const { store } = h();
      await store.worker.registerWorker({
        workerId: 'wq-some',
        host: 'h',
        pid: 1,
        role: 'cli',
        queues: ['emails', "o'brien; DROP TABLE Tasks"],
      });
      await store.worker.registerWorker({ workerId: 'wq-all', host: 'h', pid: 1, role: 'cli' });
      await store.worker.registerWorker({ workerId: 'wq-empty', host: 'h', pid: 1, role: 'cli', queues: [] });
      const byId = async () => new Map((await store.reads.listWorkers()).map((w) => [w.workerId, w]));
      let ws = await byId();
      expect(ws.get('wq-some')!.queues).toEqual(['emails', "o'brien; DROP TABLE Tasks"]);
      expect(ws.get('wq-all')!.queues).toBeNull();
      expect(ws.get('wq-empty')!.queues).toBeNull();
      await store.worker.registerWorker({ workerId: 'wq-some', host: 'h', pid: 1, role: 'cli', queues: null });
      await store.worker.registerWorker({ workerId: 'wq-all', host: 'h', pid: 1, role: 'cli', queues: ['reports'] });
      ws = await byId();
      expect(ws.get('wq-some')!.queues).toBeNull();
      expect(ws.get('wq-all')!.queues).toEqual(['reports']);
    });

    it('shows the current task of a worker while it runs', async () => {
      const { store } = h();
      const slot = await h().worker('busy-worker');
      const token = await h().add({ queue: 'jobs', command: 'demo.sleep' });
      const c = await h().claimOne(slot);
      const w = (await store.reads.listWorkers()).find((x) => x.workerId === 'busy-worker')!;
      expect(w.currentTask).toMatchObject({ token, command: 'demo.sleep', queue: 'jobs' });
      expect(w.currentTask!.startedAt).toBeInstanceOf(Date);
      expect(await h().succeed(c)).toBe(true);
      expect((await store.reads.listWorkers()).find((x) => x.workerId === 'busy-worker')!.currentTask).toBeNull();
    });

    it('heartbeat moves heartbeatAt forward', async () => {
      const { store } = h();
      const slot = await h().worker();
      const t0 = (await store.reads.listWorkers())[0]!.heartbeatAt.getTime();
      await sleep(40);
      const r = await store.worker.heartbeat({ workerIds: [slot.workerId], running: [], leaseMs: LONG_LEASE });
      expect(r).toMatchObject({ owned: [], cancelRequested: [] });
      expect((await store.reads.listWorkers())[0]!.heartbeatAt.getTime()).toBeGreaterThan(t0);
    });

    it('deregisterWorker marks the worker stopped', async () => {
      const { store } = h();
      const a = await h().worker('leaving');
      await h().worker('staying');
      await store.worker.deregisterWorker(a.workerId);
      const ws = await store.reads.listWorkers();
      expect(ws.find((w) => w.workerId === 'leaving')?.state).toBe('stopped');
      expect(ws.find((w) => w.workerId === 'staying')?.state).toBe('running');
    });

    it('markLostWorkers marks running workers with a stale heartbeat as lost', async () => {
      const { store } = h();
      // margins of seconds, not milliseconds: a remote server's round trips must not decide the outcome.
      // `fresh` beats right before the check, so it is far younger than STALE; `stale` is older than it.
      const STALE = 1_500;
      const stale = await h().worker('stale');
      const fresh = await h().worker('fresh');
      const stopped = await h().worker('stopped');
      await store.worker.deregisterWorker(stopped.workerId);
      await sleep(STALE + 1_000);
      await store.worker.heartbeat({ workerIds: [fresh.workerId], running: [], leaseMs: LONG_LEASE });
      expect(await store.maintenance.markLostWorkers(STALE)).toBe(1);
      const state = async (id: string) => (await store.reads.listWorkers()).find((w) => w.workerId === id)?.state;
      expect(await state(stale.workerId)).toBe('lost');
      expect(await state(fresh.workerId)).toBe('running');
      expect(await state(stopped.workerId)).toBe('stopped');
      expect(await store.maintenance.markLostWorkers(STALE)).toBe(0);
      expect(await store.maintenance.markLostWorkers(60_000)).toBe(0);
    });

    it('remembers the handler names workers can run', async () => {
      const { store } = h();
      expect(await store.reads.knownHandlers()).toEqual([]);
      await store.worker.registerHandlers(['demo.echo', 'demo.sleep']);
      await store.worker.registerHandlers(['report.build', 'demo.echo']);
      const names = await store.reads.knownHandlers();
      expect([...names].sort()).toEqual(['demo.echo', 'demo.sleep', 'report.build']);
    });
  });

  describe('kinds and sql tasks', () => {
    const h = useStore(factory);

    it('runs handler and sql tasks', () => {
      const { store } = h();
      expect(store.kinds).toContain('handler');
      expect(store.kinds).toContain('sql');
      expect(['sqlite', 'mssql']).toContain(store.dialect);
      expect(store.description.length).toBeGreaterThan(0);
      // where procedures are not a kind of this store, there is nothing more to check about them here
      if (store.kinds.includes('procedure')) expect(store.sqlServer).not.toBeNull();
    });

    it('runSql runs statements on the worker session and reports rows', async () => {
      const { store } = h();
      // statements outside any task: an attempt with no task behind it
      const slot = { ...(await h().worker()), taskId: 0, attempt: 0, parents: [] };
      const signal = new AbortController().signal;
      const table = `contract_probe_${Math.random().toString(36).slice(2, 10)}`;
      await store.worker.runSql(slot, `CREATE TABLE ${table} (n INT)`, signal);
      try {
        const ins = await store.worker.runSql(slot, `INSERT INTO ${table} (n) VALUES (1), (2), (3)`, signal);
        expect(ins.rowsAffected).toBe(3);
        const sel = await store.worker.runSql(slot, `SELECT n FROM ${table} ORDER BY n`, signal);
        expect(sel.rows).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
        expect(sel.rowsAffected).toBeGreaterThanOrEqual(0);
        const upd = await store.worker.runSql(slot, `UPDATE ${table} SET n = n + 10 WHERE n >= 2`, signal);
        expect(upd.rowsAffected).toBe(2);
        expect(upd.rows).toEqual([]);
        const after = await store.worker.runSql(slot, `SELECT COUNT(*) AS big FROM ${table} WHERE n > 10`, signal);
        expect(after.rows).toEqual([{ big: 2 }]);
      } finally {
        await store.worker.runSql(slot, `DROP TABLE ${table}`, signal);
      }
    });

    it('runSql rejects a bad statement with an Error carrying the message', async () => {
      const { store } = h();
      // statements outside any task: an attempt with no task behind it
      const slot = { ...(await h().worker()), taskId: 0, attempt: 0, parents: [] };
      const signal = new AbortController().signal;
      // a real syntax error on every store (on SQL Server a batch opening with a bare word such as `SELEC 1`
      // is an EXEC of a procedure of that name, error 2812, not a syntax error)
      const e1 = await store.worker.runSql(slot, 'SELECT 1 +', signal).then(
        () => null,
        (e: unknown) => e,
      );
      expect(e1).toBeInstanceOf(Error);
      expect((e1 as Error).message.length).toBeGreaterThan(0);
      const e2 = await store.worker.runSql(slot, 'SELECT * FROM contract_no_such_table', signal).then(
        () => null,
        (e: unknown) => e,
      );
      expect(e2).toBeInstanceOf(Error);
      expect((e2 as Error).message).toMatch(/contract_no_such_table/i);
      // the session is still usable afterwards
      expect((await store.worker.runSql(slot, 'SELECT 7 AS seven', signal)).rows).toEqual([{ seven: 7 }]);
    });
  });
}
