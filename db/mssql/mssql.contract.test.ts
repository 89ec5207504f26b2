// The Store contract, and what only SQL Server does (sessions, T-SQL errors, procedures, live
// status, KILL), against a real server named by MSSQL_URL:
//
//   MSSQL_URL='mssql://user:password@localhost:1433/readpast_test?trustServerCertificate=true' npm run test:mssql
//
// The login needs to create the readpast schema (first run), read/write its tables, and create
// tables and a procedure in its default schema (the tests drop them again). Every test starts
// from empty readpast tables. Without MSSQL_URL every test here is reported as skipped.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, SchemaVersionError, ValidationError } from '../../lib/engine/errors';
import { errorInfo } from '../../lib/engine/retry';
import type { RunningAttempt } from '../../lib/engine/ports';
import type { ClaimedTask } from '../../lib/engine/types';
import { storeContract } from '../contract/suite';
import { callerTests } from './test-support/callers-suite';
import { openMssqlStore, type MssqlStore } from './store';
import { CODE_VERSION } from './migrations';
import { emptyTables, recordVersion } from './test-support/empty-tables';

const url = process.env.MSSQL_URL;
const quiet = () => {};

async function freshStore(): Promise<MssqlStore> {
  const store = await openMssqlStore(url!, { log: quiet });
  await emptyTables(url!);
  return store;
}

const factory = async () => {
  const store = await freshStore();
  return { store, cleanup: () => store.close() };
};

/**
 * The randomized claim model over TDS: each claim is a round trip and a batch of its own, so a seed gets
 * half the steps and three minutes (80 steps took ~60 s against a slow server, its whole timeout).
 */
const CONTRACT = { claimModel: { steps: 40, timeoutMs: 180_000 } };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const never = () => new AbortController().signal;

function serverTests(): void {
  describe('SQL Server only', () => {
    let store: MssqlStore;
    let n = 0;
    beforeEach(async () => {
      store = await freshStore();
    });
    afterEach(async () => {
      await store.close();
    });
    /** A registered worker, as a slot to claim with and as statements outside any task (task 0) to run. */
    const worker = async (): Promise<RunningAttempt> => {
      const workerId = `mssql-test-${process.pid}-${++n}`;
      const s = await store.worker.registerWorker({ workerId, host: 'test', pid: process.pid, role: 'test' });
      return { workerId, session: s.session, taskId: 0, attempt: 0, parents: [] };
    };
    /**
     * A worker's session as the store records it: SPID and login time. SQL Server reuses SPIDs (a replaced
     * connection may well get the one just freed), so a session is told apart by both, as the store does.
     */
    const sessionOf = async (workerId: string) => {
      const w = (await store.reads.listWorkers()).find((x) => x.workerId === workerId)!;
      return `${w.session}@${w.loginTime.getTime()}`;
    };
    /** The attempt a claim started, as the worker loop hands it to runSql / runProcedure. */
    const attemptOf = (c: ClaimedTask): RunningAttempt => ({
      taskId: c.id,
      attempt: c.attempt,
      workerId: c.workerId,
      session: c.session,
      parents: c.parents,
    });

    it("runs sql tasks on the worker's own session, tagged for the DBA", async () => {
      const slot = await worker();
      const idle = await store.worker.runSql(
        slot,
        'SELECT @@SPID AS spid, APP_NAME() AS app, CAST(CONTEXT_INFO() AS varchar(128)) AS tag',
        never(),
      );
      expect(idle.rows[0]).toMatchObject({ spid: slot.session });
      expect(String(idle.rows[0]!.app)).toContain(slot.workerId);
      const token = (await store.commands.enqueue({ kind: 'sql', command: 'SELECT 1' })).token;
      const [c] = await store.worker.claim([slot], { leaseMs: 60_000 });
      expect(c).toMatchObject({ token, session: slot.session });
      const during = await store.worker.runSql(
        attemptOf(c!),
        'SELECT @@SPID AS spid, CAST(CONTEXT_INFO() AS varchar(128)) AS tag',
        never(),
      );
      expect(during.rows[0]!.spid).toBe(slot.session);
      expect(String(during.rows[0]!.tag)).toMatch(new RegExp(`^rp;t=${c!.id};a=1;w=`));
      expect((await store.reads.getTask(token))!.history[0]!.session).toBe(slot.session);
    });

    it("records a replaced session only against the attempt's own worker", async () => {
      const owner = await worker();
      const other = await worker();
      const token = (await store.commands.enqueue({ kind: 'sql', command: 'SELECT 1' })).token;
      const [c] = await store.worker.claim([owner], { leaseMs: 60_000 });
      expect(c).toMatchObject({ token, session: owner.session });
      // another worker claiming to run this attempt, on its own (different) session: nothing is recorded
      await store.worker.runSql({ ...attemptOf(c!), workerId: other.workerId }, 'SELECT 1 AS one', never());
      expect((await store.reads.getTask(token))!.history[0]!.session).toBe(owner.session);
      // the owner's attempt, told it was claimed on another session: its own session is recorded
      await store.worker.runSql({ ...attemptOf(c!), session: -1 }, 'SELECT 1 AS one', never());
      expect((await store.reads.getTask(token))!.history[0]!.session).toBe(owner.session);
      expect(
        await store.worker.finish([
          { taskId: c!.id, workerId: owner.workerId, attempt: 1, settlement: { kind: 'succeeded', result: null } },
        ]),
      ).toEqual([true]);
    });

    it('records error number, severity, state, line and message', async () => {
      const slot = await worker();
      const err = await store.worker.runSql(slot, "SELECT 1 AS one;\nRAISERROR('boom %d', 16, 7, 42);", never()).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ number: 50000, severity: 16, state: 7, lineNumber: 2, message: 'boom 42' });
      expect(errorInfo(err).detail).toContain('Msg 50000, Level 16, State 7, Line 2');
      // a real syntax error (Msg 102): a batch opening with a bare word, such as `SELEC 1`, is an EXEC of a
      // procedure of that name (Msg 2812), not a syntax error
      const syntax = await store.worker.runSql(slot, 'SELECT 1 +', never()).then(
        () => null,
        (e: unknown) => e,
      );
      expect(syntax).toMatchObject({ number: 102, retryable: false });
    });

    it('rolls back what a task left open and resets the session before the next one', async () => {
      const slot = await worker();
      await store.worker.runSql(
        slot,
        'SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; SET LOCK_TIMEOUT 10; BEGIN TRANSACTION; SELECT 1 AS one',
        never(),
      );
      const after = await store.worker.runSql(
        slot,
        `SELECT @@TRANCOUNT AS trancount, @@LOCK_TIMEOUT AS lock_timeout, @@OPTIONS & 16384 AS xact_abort,
        (SELECT transaction_isolation_level FROM sys.dm_exec_sessions WHERE session_id = @@SPID) AS isolation`,
        never(),
      );
      expect(after.rows[0]).toEqual({ trancount: 0, lock_timeout: -1, xact_abort: 0, isolation: 2 });
      // a doomed transaction is rolled back by the server at the end of the batch; the session stays usable
      await store.worker
        .runSql(
          slot,
          'SET XACT_ABORT ON; BEGIN TRY BEGIN TRANSACTION; SELECT 1 / 0; END TRY BEGIN CATCH SELECT XACT_STATE() AS xs; END CATCH',
          never(),
        )
        .catch(() => null);
      expect((await store.worker.runSql(slot, 'SELECT @@TRANCOUNT AS t', never())).rows).toEqual([{ t: 0 }]);
    });

    it('splits a script on GO and replaces a session left with temp tables', async () => {
      const slot = await worker();
      const before = await sessionOf(slot.workerId);
      const r = await store.worker.runSql(
        slot,
        'CREATE TABLE #g (n int)\nGO\nINSERT INTO #g VALUES (1), (2)\nGO 2\nSELECT COUNT(*) AS n FROM #g',
        never(),
      );
      expect(r.rows).toEqual([{ n: 4 }]);
      expect((await store.worker.runSql(slot, "SELECT OBJECT_ID('tempdb..#g') AS id", never())).rows).toEqual([{ id: null }]);
      expect(await sessionOf(slot.workerId)).not.toBe(before);
    });

    it('cancels a running request when the signal aborts (attention), and the session stays usable', async () => {
      const slot = await worker();
      const ac = new AbortController();
      const started = Date.now();
      setTimeout(() => ac.abort(new Error('stop now')), 300);
      await expect(store.worker.runSql(slot, "WAITFOR DELAY '00:00:30'", ac.signal)).rejects.toThrow('stop now');
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await store.worker.runSql(slot, 'SELECT 5 AS five', never())).rows).toEqual([{ five: 5 }]);
    });

    describe('procedure tasks', () => {
      const proc = 'dbo.readpast_test_proc';
      beforeEach(async () => {
        const slot = await worker();
        await store.worker.runSql(
          slot,
          `CREATE OR ALTER PROCEDURE ${proc}
  @Id int, @Amount decimal(18,4), @Name nvarchar(20) = N'x', @Blob varbinary(max) = NULL, @When datetime2(3) = NULL,
  @Doubled decimal(18,4) OUTPUT, @Echo nvarchar(40) OUTPUT
AS
BEGIN
  SET NOCOUNT ON;
  SET @Doubled = @Amount * 2;
  SET @Echo = CONCAT(@Name, ':', DATALENGTH(@Blob));
  SELECT @Id AS id, @When AS at_;
  RETURN 7;
END`,
          never(),
        );
      });
      afterEach(async () => {
        await store.worker.runSql(await worker(), `DROP PROCEDURE IF EXISTS ${proc}`, never());
      });

      it('describes the parameters from the catalog', async () => {
        const params = await store.sqlServer!.describeProcedure(proc);
        expect(params).toEqual([
          { name: 'Id', type: 'int', maxLength: null, precision: null, scale: null, isOutput: false, isTable: false },
          { name: 'Amount', type: 'decimal', maxLength: null, precision: 18, scale: 4, isOutput: false, isTable: false },
          { name: 'Name', type: 'nvarchar', maxLength: 20, precision: null, scale: null, isOutput: false, isTable: false },
          { name: 'Blob', type: 'varbinary', maxLength: -1, precision: null, scale: null, isOutput: false, isTable: false },
          { name: 'When', type: 'datetime2', maxLength: null, precision: null, scale: 3, isOutput: false, isTable: false },
          { name: 'Doubled', type: 'decimal', maxLength: null, precision: 18, scale: 4, isOutput: true, isTable: false },
          { name: 'Echo', type: 'nvarchar', maxLength: 40, precision: null, scale: null, isOutput: true, isTable: false },
        ]);
        expect(await store.sqlServer!.describeProcedure('dbo.no_such_procedure_here')).toBeNull();
      });

      it('refuses at enqueue what cannot convert, naming the parameter', async () => {
        await expect(store.commands.enqueue({ kind: 'procedure', command: proc, payload: { Id: 1, Amount: 'a lot' } })).rejects.toThrow(
          /payload\.Amount/,
        );
        await expect(
          store.commands.enqueue({ kind: 'procedure', command: proc, payload: { Id: 2 ** 40, Amount: 1 } }),
        ).rejects.toBeInstanceOf(ValidationError);
        await expect(store.commands.enqueue({ kind: 'procedure', command: 'dbo.no_such_procedure_here', payload: {} })).rejects.toThrow(
          /command/,
        );
      });

      it('runs with typed inputs; outputs and the return code make the result', async () => {
        const payload = { Id: 5, Amount: '12.3456', Blob: 'AQID', When: '2024-01-02T03:04:05.678Z' };
        const token = (await store.commands.enqueue({ kind: 'procedure', command: proc, payload })).token;
        const slot = await worker();
        const [c] = await store.worker.claim([slot], { leaseMs: 60_000 });
        expect(c!.token).toBe(token);
        const result = (await store.worker.runProcedure(attemptOf(c!), c!.command, c!.payload as Record<string, unknown>, never())) as {
          returnValue: number;
          output: Record<string, unknown>;
          rows: Record<string, unknown>[];
        };
        expect(result.returnValue).toBe(7);
        expect(result.output).toEqual({ Doubled: 24.6912, Echo: 'x:3' });
        expect(result.rows[0]!.id).toBe(5);
        expect((result.rows[0]!.at_ as Date).toISOString()).toBe('2024-01-02T03:04:05.678Z');
      });
    });

    it('shows live request state where permitted, and degrades to none where not', async () => {
      const live = await store.sqlServer!.liveStatus();
      expect(typeof live.available).toBe('boolean');
      if (!live.available) expect(live.reason).toMatch(/VIEW (SERVER|DATABASE) STATE/);
      const slot = await worker();
      const token = (await store.commands.enqueue({ kind: 'sql', command: "WAITFOR DELAY '00:00:02'" })).token;
      const [c] = await store.worker.claim([slot], { leaseMs: 60_000 });
      const run = store.worker.runSql(attemptOf(c!), c!.command, never());
      await sleep(500);
      const row = (await store.reads.listRunning()).find((r) => r.token === token)!;
      expect(row.session).toBe(slot.session);
      if (live.available) expect(row.live).toMatchObject({ command: expect.stringMatching(/WAITFOR/), waitType: 'WAITFOR' });
      else expect(row.live ?? null).toBeNull();
      await run;
    });

    it('KILL ends the session running a task: cancelled, token released, worker reconnected', async () => {
      const slot = await worker();
      const before = await sessionOf(slot.workerId);
      const token = (await store.commands.enqueue({ kind: 'sql', command: "WAITFOR DELAY '00:00:20'" })).token;
      const [c] = await store.worker.claim([slot], { leaseMs: 60_000 });
      const run = store.worker.runSql(attemptOf(c!), c!.command, never()).then(
        () => null,
        (e: unknown) => e,
      );
      await sleep(500);
      let killed: string;
      try {
        killed = await store.sqlServer!.killSession(token);
      } catch (err) {
        // a login without ALTER ANY CONNECTION is told so, and nothing changes
        expect(err).toBeInstanceOf(ConflictError);
        expect((await store.reads.getTask(token))!.status).toBe('running');
        await store.worker.runSql(await worker(), 'SELECT 1', never());
        return;
      }
      expect(killed).toBe('killed');
      expect(await run).toBeInstanceOf(Error);
      const t = (await store.reads.getTask(token))!;
      expect(t.status).toBe('cancelled');
      expect(t.history[0]).toMatchObject({ outcome: 'cancelled' });
      expect(
        await store.worker.finish([
          { taskId: c!.id, workerId: slot.workerId, attempt: 1, settlement: { kind: 'succeeded', result: null } },
        ]),
      ).toEqual([false]);
      const again = await store.worker.runSql(slot, 'SELECT @@SPID AS spid', never());
      expect(await sessionOf(slot.workerId)).not.toBe(before);
      expect((await store.reads.listWorkers()).find((w) => w.workerId === slot.workerId)!.session).toBe(again.rows[0]!.spid);
    });

    it('migrations are safe when several processes start at once', async () => {
      const stores = await Promise.all([1, 2, 3].map(() => openMssqlStore(url!, { log: quiet })));
      await Promise.all(stores.map((s) => s.migrate()));
      await Promise.all(stores.map((s) => s.close()));
    });

    it('a schema a newer readpast migrated is refused by migrate and by a store that does not migrate', async () => {
      const newer = CODE_VERSION + 1;
      await recordVersion(url!, newer, true);
      try {
        const message = `the database schema is at version ${newer}, newer than this readpast knows (version ${CODE_VERSION})`;
        await expect(openMssqlStore(url!, { log: quiet })).rejects.toThrow(message);
        const oneShot = await openMssqlStore(url!, { log: quiet, migrate: false });
        try {
          await expect(oneShot.commands.enqueue({ kind: 'sql', command: 'SELECT 1' })).rejects.toThrow(SchemaVersionError);
          await expect(oneShot.reads.countsByQueue()).rejects.toThrow(message);
        } finally {
          await oneShot.close();
        }
      } finally {
        await recordVersion(url!, newer, false);
      }
      const current = await openMssqlStore(url!, { log: quiet, migrate: false });
      await expect(current.reads.countsByQueue()).resolves.toBeDefined();
      await current.close();
    });
  });
}

if (url) {
  storeContract('mssql', factory, CONTRACT);
  serverTests();
  callerTests(url, freshStore);
} else {
  console.warn(
    'SKIPPED: SQL Server contract suite — set ' +
      'MSSQL_URL=mssql://user:password@host:1433/database?trustServerCertificate=true to run it (npm run test:mssql)',
  );
  describe.skip('SQL Server store — MSSQL_URL is not set', () => {
    storeContract('mssql', factory, CONTRACT);
    serverTests();
    callerTests('', freshStore);
  });
}
