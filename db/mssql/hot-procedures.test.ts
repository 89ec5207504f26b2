// The store's hot writes call installed procedures (sql/hot.ts) instead of sending their T-SQL: bytes
// sent per call, measured with the real driver against the stand-in TDS endpoint (test-support/fake-tds.ts); each
// body pinned to its versioned name; the migration of its version installs it; a missing one says to migrate.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTds, sessionRow, type FakeReplier } from './test-support/fake-tds';
import { MIGRATIONS } from './schema';
import { CLAIM } from './sql/claim';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { createHotProcedure, HOT, HOT_PROCEDURES, hotName } from './sql/hot';
import { FINISH } from './sql/settle';
import { HEARTBEAT } from './sql/workers';
import { openMssqlStore, type MssqlStore } from './store';

let tds: FakeTds;
let store: MssqlStore | null = null;

async function open(reply: FakeReplier): Promise<MssqlStore> {
  tds = new FakeTds(reply);
  await tds.start();
  store = await openMssqlStore(tds.url(), { log: () => {}, migrate: false, wakeMs: 0 });
  return store;
}

afterEach(async () => {
  await store?.close().catch(() => {});
  store = null;
  await tds?.stop();
});

const tagReply: FakeReplier = (req, conn) =>
  req.text.includes('SET CONTEXT_INFO @tag') ? { sets: [sessionRow(conn, { login_name: 'app', user_name: 'app' })] } : undefined;

describe('bytes per call of the hot writes', () => {
  it('enqueue, claim, finish and heartbeat each send well under 2 KB', async () => {
    const s = await open(tagReply);
    const workerId = 'w-bytes';
    await s.worker.registerWorker({ workerId, host: 'h', pid: 1, role: 'test' });
    const total = () => tds.requests().reduce((n, r) => n + r.bytes, 0);
    const sent = async (fn: () => Promise<unknown>) => {
      const before = total();
      await fn().catch(() => {});
      return total() - before;
    };
    const figures = {
      enqueue: await sent(() => s.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: { a: 1 } })),
      claim: await sent(() => s.worker.claim([{ workerId, session: 51 }], { leaseMs: 30_000 })),
      finish: await sent(() => s.worker.finish([{ taskId: 1, workerId, attempt: 1, settlement: { kind: 'succeeded', result: null } }])),
      heartbeat: await sent(() =>
        s.worker.heartbeat({ workerIds: [workerId], running: [{ taskId: 1, workerId, attempt: 1 }], leaseMs: 30_000 }),
      ),
    };
    // sent as statements they were: enqueue 35,866, claim 60,066, finish 33,960, heartbeat 2,067 bytes
    console.log('bytes per call', figures);
    for (const [k, v] of Object.entries(figures)) expect(v, k).toBeLessThan(2048);
    // by name: each is an RPC of its versioned procedure
    for (const p of HOT_PROCEDURES)
      expect(
        tds.requests().some((r) => r.kind === 'rpc' && r.text.includes(hotName(p))),
        p.name,
      ).toBe(true);
  });

  it('a procedure the database lacks (a schema older than the code) says to run readpast migrate', async () => {
    const s = await open((req, conn) =>
      req.text.includes(hotName(HOT.enqueue))
        ? { error: { number: 2812, message: `Could not find stored procedure '${hotName(HOT.enqueue)}'.` } }
        : tagReply(req, conn),
    );
    await expect(s.commands.enqueue({ kind: 'handler', command: 'demo.echo' })).rejects.toThrow(/run `readpast migrate`/);
  });
});

/**
 * sha-256 (first 16 hex digits) of each procedure as its migration installs it. A body installed under
 * a name must never change: a database may hold it, and processes of that version call it. (Released and
 * no longer this code's: Enqueue_v17 c06506c95fd242eb, Claim_v17 af55461421c8c8ec, Enqueue_v19 603d6ad610623a60,
 * Claim_v19 108bf5583e371699, Finish_v17 3f1040c2b216f908,
 * Enqueue_v20 7b36ba682f1d3193, Claim_v20 7bc9c6eda92a27da, Finish_v20 c4510310c43f76bf.)
 */
const PINNED: Record<string, string> = {
  'readpast.Enqueue_v22': '4ba15c76ff834562',
  'readpast.Claim_v22': '2b0c716fccda45d4',
  'readpast.Finish_v22': '53d57c0666f799c8',
  'readpast.Heartbeat_v17': '6418b153a9f9e8c4',
};

describe('installed procedures: one definition, versioned names', () => {
  it('each body is the statement the store used to send, installed by the migration of its version', () => {
    expect(HOT.enqueue.body).toContain(ENQUEUE_WRITE);
    expect(HOT.claim.body).toBe(CLAIM);
    expect(HOT.finish.body).toBe(FINISH);
    expect(HOT.heartbeat.body).toBe(HEARTBEAT);
    for (const p of HOT_PROCEDURES) {
      const m = MIGRATIONS.find((x) => x.version === p.version);
      expect(m?.batches, hotName(p)).toContain(createHotProcedure(p));
    }
  });

  it('a body installed under a name never changes (a change is a new version, installed by a new migration)', () => {
    const now = Object.fromEntries(
      HOT_PROCEDURES.map((p) => [hotName(p), createHash('sha256').update(createHotProcedure(p)).digest('hex').slice(0, 16)]),
    );
    // When this fails because CLAIM, FINISH, HEARTBEAT or ENQUEUE_WRITE changed: set that procedure's
    // version (sql/hot.ts) to a new migration's number, have that migration install it (createHotProcedure)
    // and ExecAsync again if it was Enqueue (callers.test.ts), drop the old name there if the schema change
    // breaks it, and pin the new name here. Never change the hash of a name already released (a name
    // whose migration has not been released yet may be re-pinned instead: no database holds it).
    expect(now).toEqual(PINNED);
  });
});

describe('a stand-in is refused on the first error of a command that does not migrate', () => {
  const probe = (babelfish: boolean) => ({
    sets: [
      {
        columns: [
          ['babelfish', 'int'],
          ['babelfish_version', 'nvarchar'],
          ['version_text', 'nvarchar'],
          ['database_name', 'nvarchar'],
          ['product_version', 'nvarchar'],
          ['engine_edition', 'int'],
          ['compatibility_level', 'int'],
        ],
        rows: [
          babelfish
            ? [1, '4.3.0', 'Babelfish for Aurora PostgreSQL with SQL Server Compatibility - 12.0.2000.8', 'fake', null, null, null]
            : [0, null, 'Microsoft SQL Server 2022 (RTM-CU12) - 16.0.4125.3', 'fake', '16.0.4125.3', 3, 160],
        ],
      },
    ] as const,
  });
  const isProbe = (text: string) => text.includes("SERVERPROPERTY('Babelfish')");

  it('Babelfish: the enqueue fails with the refusal migrate gives, not with the stand-in’s parse error', async () => {
    const s = await open((req, conn) => {
      if (isProbe(req.text)) return probe(true);
      if (req.text.includes(hotName(HOT.enqueue))) return { error: { number: 33557097, message: 'syntax error at or near "READPAST"' } };
      return tagReply(req, conn);
    });
    await expect(s.commands.enqueue({ kind: 'handler', command: 'demo.echo' })).rejects.toThrow(
      /Babelfish for PostgreSQL 4\.3\.0, SERVERPROPERTY\('Babelfish'\) = 1\) is not SQL Server/,
    );
    // and so does every later command, without asking again
    await expect(s.reads.countsByQueue()).rejects.toThrow(/is not SQL Server/);
    expect(tds.requests().filter((r) => isProbe(r.text))).toHaveLength(1);
  });

  it('SQL Server: the statement’s own error, and the server is asked once', async () => {
    const s = await open((req, conn) => {
      if (isProbe(req.text)) return probe(false);
      if (req.text.includes(hotName(HOT.enqueue)))
        return { error: { number: 51002, message: 'batch 7 is released; only an open batch takes new tasks' } };
      return tagReply(req, conn);
    });
    for (let i = 0; i < 2; i++)
      await expect(s.commands.enqueue({ kind: 'handler', command: 'demo.echo', batchId: 7 })).rejects.toThrow(/only an open batch/);
    expect(tds.requests().filter((r) => isProbe(r.text))).toHaveLength(1);
  });
});
