// The store's hot writes call installed procedures (sql/hot.ts) instead of sending their T-SQL: bytes
// sent per call, measured with the real driver against the stand-in TDS endpoint (test-support/fake-tds.ts); each
// named by the hash of its definition; installed by the code-object step; a missing one says to migrate.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReplier, FakeTds } from './test-support/fake-tds';
import { asApp, closeFakeStores, openFakeStore } from './test-support/fake-store';
import { serverProbeReply } from './test-support/replies';
import { MIGRATIONS, SCHEMA_HEAD } from './schema';
import { CLAIM } from './sql/claim';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { CODE_OBJECTS } from './code-objects';
import { createHotProcedure, HOT, HOT_PROCEDURES, hotBareName, hotName } from './sql/hot';
import { FINISH } from './sql/settle';
import { HEARTBEAT } from './sql/workers';
import type { MssqlStore } from './store';

let tds: FakeTds;

async function open(reply: FakeReplier): Promise<MssqlStore> {
  const opened = await openFakeStore(reply, { wakeMs: 0 });
  tds = opened.tds;
  return opened.store;
}

afterEach(closeFakeStores);

const tagReply = asApp();

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
    const err = await s.commands.enqueue({ kind: 'handler', command: 'demo.echo' }).catch((e: Error) => e);
    expect((err as Error).message).toContain(`this readpast (schema version ${SCHEMA_HEAD}) calls ${hotName(HOT.enqueue)}`);
    expect((err as Error).message).toMatch(/run `readpast migrate` with this readpast/);
  });
});

describe('installed procedures: one definition, named by its content', () => {
  it('each body is the statement the store used to send; the code-object step installs each, not a migration', () => {
    expect(HOT.enqueue.body).toContain(ENQUEUE_WRITE);
    expect(HOT.claim.body).toBe(CLAIM);
    expect(HOT.finish.body).toBe(FINISH);
    expect(HOT.heartbeat.body).toBe(HEARTBEAT);
    for (const p of HOT_PROCEDURES) {
      expect(CODE_OBJECTS.find((o) => o.name === hotBareName(p))?.text, hotName(p)).toBe(createHotProcedure(p));
      for (const m of MIGRATIONS) expect(m.batches.join('\n'), `migration ${m.version}`).not.toContain(hotName(p));
    }
  });

  it('a name is the hash of its definition: any change to a body or its parameters is a new name', () => {
    for (const p of HOT_PROCEDURES) {
      const definition = createHotProcedure(p).slice(`CREATE OR ALTER PROCEDURE ${hotName(p)} `.length);
      expect(hotName(p)).toBe(`readpast.${p.name}_${createHash('sha256').update(definition).digest('hex').slice(0, 8)}`);
      const changed = { ...p, body: `${p.body}\n  -- changed` };
      expect(hotName(changed)).not.toBe(hotName(p));
      expect(hotName({ ...p, params: [...p.params.slice(0, -1)] })).not.toBe(hotName(p));
    }
    // the names differ from one another and from the hand-versioned names of before (Claim_v20, …)
    const names = HOT_PROCEDURES.map(hotBareName);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^(Enqueue|Claim|Finish|Heartbeat)_[0-9a-f]{8}$/);
  });
});

describe('a stand-in is refused on the first error of a command that does not migrate', () => {
  const probe = serverProbeReply;
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
