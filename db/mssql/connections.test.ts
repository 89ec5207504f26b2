// What the SQL Server store costs a server and how it behaves when the server is slow or gone,
// measured with the real driver (mssql, tedious, tarn) against a stand-in TDS endpoint (test-support/fake-tds.ts)
// that answers each statement as the test says: logins and round trips per path, workers set up in
// parallel, heartbeats on their own connection while everything else waits, the next claim soon
// after a restart, a session left impersonated replaced, live state that fails without failing the
// running list. No SQL runs here; the SQL itself is checked by tsql-parse.test.ts and, with a server,
// mssql.contract.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../lib/engine/handlers';
import type { Logger } from '../../lib/engine/logger';
import { Pool } from '../../lib/engine/pool';
import { SchemaVersionError } from '../../lib/engine/errors';
import { raceCreate } from './connection';
import { SCHEMA_GUARD_ERROR } from './errors';
import { CODE_VERSION } from './migrations';
import { SCHEMA_GUARD } from './sql/migrations';
import { CLAIM_COLUMNS, claimRow, claimSlotsOf, cleanupReply } from './test-support/replies';
import { sessionRow, type FakeConnection, type FakeReplier, type FakeReply, type FakeRequest, type FakeTds } from './test-support/fake-tds';
import { closeFakeStores, closeFakeStoresAfter, openFakeStore } from './test-support/fake-store';
import { carriedRows } from './test-support/rpc';
import type { MssqlStore } from './store';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const isTag = (r: FakeRequest) => r.text.includes('SET CONTEXT_INFO @tag');
const isClaim = (r: FakeRequest) => r.text.includes('@unbatched_served');
const isCleanup = (r: FakeRequest) => r.text.includes('SELECT @@TRANCOUNT AS trancount');
const isWorker = /^readpast worker /;

let nextTaskId = 1;

/** A handler task for each of the first `n` slots a claim asks to fill, as CLAIM's first result set returns them. */
function claimed(req: FakeRequest, conn: FakeConnection, n: number, command = 'demo.sleep', payload: unknown = { ms: 3000 }): FakeReply {
  const rows = claimSlotsOf(req, conn)
    .slice(0, n)
    .map((slot) => claimRow(nextTaskId++, slot, { command, payload }));
  return { sets: [{ columns: CLAIM_COLUMNS, rows }] };
}

/** HEARTBEAT's answer: every attempt it was asked about is still owned. */
function owned(req: FakeRequest): FakeReply {
  const ids = [...new Set([...req.text.matchAll(/"taskId":(\d+)/g)].map((m) => Number(m[1])))];
  return {
    sets: [
      {
        columns: [
          ['id', 'bigint'],
          ['cancel_requested', 'bit'],
        ],
        rows: ids.map((i) => [i, false]),
      },
    ],
  };
}

/** Answers what every test needs: the session's description, heartbeats; `more` first. */
function replier(more: FakeReplier = () => undefined): FakeReplier {
  return (req, conn) => {
    const r = more(req, conn);
    if (r) return r;
    if (isTag(req)) return { sets: [sessionRow(conn, { login_name: 'app', user_name: 'app' })] };
    if (conn.appName === 'readpast heartbeat') return owned(req);
    return undefined;
  };
}

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const noop = () => {};
  return { warnings, debug: noop, info: noop, error: noop, warn: (_o, m) => warnings.push(m ?? '') };
}

let tds: FakeTds;
let pool: Pool | null = null;

async function open(reply: FakeReplier, latencyMs = 0): Promise<MssqlStore> {
  const opened = await openFakeStore(reply, {}, (t) => {
    t.latencyMs = latencyMs;
  });
  tds = opened.tds;
  return opened.store;
}

afterEach(() => closeFakeStoresAfter(pool));

describe('connections and round trips (the real driver against a stand-in TDS endpoint)', () => {
  it('an enqueue is one login and one round trip: no migration check, no probe connection', async () => {
    const s = await open(replier());
    const t = await s.commands.enqueue({ kind: 'sql', command: 'SELECT 1' });
    expect(t).toBeUndefined(); // the stand-in returns no rows; what matters is what was sent
    expect(tds.logins()).toHaveLength(1);
    expect(tds.requests()).toHaveLength(1);
    expect(tds.requests()[0]!.text).toContain('readpast.Enqueue_'); // the installed procedure, by name
    // the store's own count agrees with what the server saw
    expect(s.driverCounts).toEqual({ connections: 1, roundTrips: 1 });
  });

  it('an enqueueMany of 1,000 is one round trip: the rows as one JSON parameter of the enqueue procedure', async () => {
    const s = await open(replier());
    const inputs = Array.from({ length: 1000 }, (_, i) => ({ kind: 'sql' as const, command: `SELECT ${i}`, queue: 'bulk' }));
    await s.commands.enqueueMany(inputs);
    expect(tds.logins()).toHaveLength(1);
    expect(tds.requests()).toHaveLength(1);
    const call = tds.requests()[0]!.call!;
    // the installed procedure, by name, in one parameterised statement (after the schema guard of a first statement)
    expect(call.procedure).toBe('sp_executesql');
    expect(call.statement).toContain('EXEC readpast.Enqueue_');
    expect(call.partial).toBe(false);
    expect(carriedRows(call)).toEqual({ tasks: 1000 });
    const rows = JSON.parse(call.params.tasks as string) as { ord: number; command: string }[];
    expect(rows.map((r) => r.ord)).toEqual(inputs.map((_, i) => i));
    expect(rows[999]!.command).toBe('SELECT 999');
    expect(s.driverCounts).toEqual({ connections: 1, roundTrips: 1 });
  });

  it('a missing schema says to run readpast migrate', async () => {
    const s = await open(replier(() => ({ error: { number: 208, message: "Invalid object name 'readpast.Tasks'." } })));
    await expect(s.commands.enqueue({ kind: 'sql', command: 'SELECT 1' })).rejects.toThrow(/run `readpast migrate`/);
    await expect(s.reads.countsByQueue()).rejects.toThrow(/schema is missing or out of date/);
  });

  it("a store that does not migrate checks the schema's version on its first statement, in the same round trip", async () => {
    const s = await open(replier());
    await s.commands.enqueue({ kind: 'sql', command: 'SELECT 1' });
    await s.commands.enqueue({ kind: 'sql', command: 'SELECT 2' });
    const [first, second] = tds.requests();
    // the guard, then the statement: one request
    const guardLine = SCHEMA_GUARD.split('\n')[0]!;
    expect(first!.text).toContain(guardLine);
    expect(first!.text.indexOf(guardLine)).toBeLessThan(first!.text.indexOf('EXEC readpast.Enqueue_'));
    expect(second!.text).toContain('readpast.Enqueue_'); // the installed procedure, by name
    expect(second!.text).not.toContain('readpast.SchemaVersion');
    expect(s.driverCounts).toEqual({ connections: 1, roundTrips: 2 });
  });

  it('a schema a newer readpast migrated is refused naming both versions; an older one says to run readpast migrate', async () => {
    const guarded = (version: number) =>
      replier((req) =>
        req.text.includes('@readpast_code_version')
          ? { error: { number: SCHEMA_GUARD_ERROR, message: `readpast schema version ${version}` } }
          : undefined,
      );
    const newer = await open(guarded(CODE_VERSION + 1));
    const refused = newer.commands.enqueue({ kind: 'sql', command: 'SELECT 1' });
    await expect(refused).rejects.toThrow(SchemaVersionError);
    await expect(refused).rejects.toThrow(
      `the database schema is at version ${CODE_VERSION + 1}, newer than this readpast knows (version ${CODE_VERSION}): ` +
        'a newer readpast migrated it; upgrade readpast here to that version (or a newer one)',
    );
    // still refused: nothing got past the check
    await expect(newer.reads.countsByQueue()).rejects.toThrow(SchemaVersionError);
    await closeFakeStores();
    const older = await open(guarded(CODE_VERSION - 1));
    await expect(older.reads.countsByQueue()).rejects.toThrow(
      `the database schema is at version ${CODE_VERSION - 1}, older than this readpast needs (version ${CODE_VERSION}): ` +
        'run `readpast migrate`',
    );
  });

  it('workers are set up in parallel: one login and two round trips each before the first claim', async () => {
    let handed = false;
    const s = await open(
      replier((req, conn) => {
        // the first claim fills every slot it names
        if (isClaim(req) && !handed) {
          handed = true;
          return claimed(req, conn, 3, 'demo.sleep', { ms: 200 });
        }
        return undefined;
      }),
      50,
    );
    pool = new Pool(s, defaultRegistry(), { concurrency: 3, maintenance: false, heartbeatMs: 100, leaseMs: 5000 });
    await pool.start();
    for (let i = 0; i < 200 && pool.busy < 3; i++) await sleep(10);
    const workers = tds.logins(isWorker);
    expect(workers).toHaveLength(3); // one login each: no throw-away probe connection
    // the first claim: one request for the three slots, once every worker is set up (tag + register each)
    const firstClaim = tds.requests(isWorker).filter(isClaim)[0]!;
    expect(
      claimSlotsOf(firstClaim, workers[0]!)
        .map((x) => x.workerId)
        .sort(),
    ).toEqual(pool.workerIds().sort());
    for (const w of workers) {
      const before = w.requests.filter((r) => r.at <= firstClaim.at && !isClaim(r));
      expect(before.length, w.appName).toBe(2);
    }
    // in parallel: every worker has logged in before any of them has finished setting up (its second request, the
    // registration, answered 50 ms after it arrives). One registration after the other, the second login would come
    // after the first worker's registration — an order, not a time, so a busy machine does not change it
    const lastLogin = Math.max(...workers.map((w) => w.loginAt.getTime()));
    const firstSetUp = Math.min(...workers.map((w) => w.requests.filter((r) => !isClaim(r))[1]!.at));
    expect(lastLogin).toBeLessThanOrEqual(firstSetUp);
    // and the process as a whole: the shared pool and the heartbeats' connection, one login each
    expect(tds.logins('readpast')).toHaveLength(1);
    expect(tds.logins('readpast heartbeat').length).toBeLessThanOrEqual(1);
  });
});

describe('heartbeats do not wait behind the rest of the process', () => {
  it('renew on their own connection while claims and the shared pool are held up', async () => {
    // Claims and the shared pool are held up HOLD_MS; a heartbeat that queued behind either would leave a gap of about
    // HOLD_MS and take that long. The bounds are fractions of the hold, not of the machine's speed: a busy machine
    // stretches a 100 ms beat, it does not make one wait 3 s.
    const HOLD_MS = 3000;
    let congested = false;
    let handed = 0;
    const s = await open(
      replier((req, conn) => {
        // three of the four workers get a task that outlasts the hold; the fourth stays idle and keeps claiming
        if (isClaim(req) && handed < 3) {
          const r = claimed(req, conn, 3 - handed, 'demo.sleep', { ms: 2 * HOLD_MS });
          handed += r.sets![0]!.rows.length;
          return r;
        }
        // a claim that waits on locks (the dispatcher waits with it), and a shared pool whose every
        // connection is busy: finishes, maintenance and reads all queue
        if (congested && (isClaim(req) || conn.appName === 'readpast')) return { delayMs: HOLD_MS };
        return undefined;
      }),
    );
    const log = capture();
    // a lease of 8 s: a beat is "slow" over 2 s (a quarter), less than the hold
    pool = new Pool(s, defaultRegistry(), { concurrency: 4, maintenance: true, heartbeatMs: 100, leaseMs: 8000, logger: log });
    await pool.start();
    for (let i = 0; i < 300 && pool.busy < 3; i++) await sleep(10);
    expect(pool.busy).toBe(3);
    congested = true;
    const from = Date.now();
    // twelve slow reads from "the dashboard": more than the shared pool's ten connections
    const reads = Array.from({ length: 12 }, () => s.reads.countsByQueue().catch(() => []));
    await sleep(HOLD_MS);
    const to = Date.now();
    const beats = tds.requests('readpast heartbeat').filter((r) => r.at >= from && r.at <= to);
    // a claim was held up meanwhile
    expect(tds.requests(isWorker).some((r) => isClaim(r) && r.at >= from && r.at < to)).toBe(true);
    // beats went on through the hold (every ~100 ms when the machine is quiet), each renewing all three attempts
    expect(beats.length).toBeGreaterThanOrEqual(5);
    const gaps = [beats[0]!.at - from, ...beats.slice(1).map((b, i) => b.at - beats[i]!.at), to - beats[beats.length - 1]!.at];
    expect(Math.max(...gaps)).toBeLessThan(HOLD_MS / 2);
    for (const b of beats) expect(new Set([...b.text.matchAll(/"taskId":(\d+)/g)].map((m) => m[1])).size).toBe(3);
    expect(log.warnings.filter((w) => /slow heartbeat/.test(w))).toEqual([]);
    congested = false;
    await Promise.all(reads);
  });
});

describe('after the server restarts', () => {
  it('the next claim is tried within 2 s of the server being back', async () => {
    const s = await open(replier());
    pool = new Pool(s, defaultRegistry(), { concurrency: 2, maintenance: true, heartbeatMs: 200, pollMs: 500, leaseMs: 5000 });
    await pool.start();
    for (let i = 0; i < 200 && tds.requests(isWorker).filter(isClaim).length === 0; i++) await sleep(10);
    await tds.stop();
    await sleep(1500);
    await tds.start();
    const back = Date.now();
    let next: FakeRequest | undefined;
    for (let i = 0; i < 400 && !next; i++) {
      next = tds.requests(isWorker).find((r) => isClaim(r) && r.at >= back);
      if (!next) await sleep(10);
    }
    expect(next).toBeDefined();
    expect(next!.at - back).toBeLessThan(2000);
    // on a new connection of the worker's (the old one died with the server)
    expect(tds.logins(isWorker).filter((c) => c.loginAt.getTime() >= back).length).toBeGreaterThanOrEqual(1);
  });
  it('a login the server swallowed does not hold the worker until the connect timeout', async () => {
    const s = await open(replier());
    pool = new Pool(s, defaultRegistry(), { concurrency: 1, maintenance: false, heartbeatMs: 200, pollMs: 200, leaseMs: 5000 });
    await pool.start();
    for (let i = 0; i < 200 && tds.requests(isWorker).filter(isClaim).length === 0; i++) await sleep(10);
    // down, then up but not answering (starting up; or the packets go nowhere): the worker's
    // reconnect hangs there — tedious waits 15 s for it unless told otherwise
    await tds.stop();
    tds.stalled = true;
    await tds.start();
    await sleep(2000);
    tds.stalled = false;
    const back = Date.now();
    let next: FakeRequest | undefined;
    for (let i = 0; i < 500 && !next; i++) {
      next = tds.requests(isWorker).find((r) => isClaim(r) && r.at >= back);
      if (!next) await sleep(10);
    }
    expect(next).toBeDefined();
    expect(next!.at - back).toBeLessThan(2000);
  });
});

describe('session hygiene after a sql task', () => {
  it('a task that leaves the session impersonated gets a new connection; a clean one keeps its own', async () => {
    const impersonated = new Set<number>();
    const s = await open(
      replier((req, conn) => {
        if (req.kind === 'batch' && /EXECUTE AS USER/.test(req.text)) impersonated.add(conn.id);
        if (isCleanup(req)) {
          return cleanupReply(impersonated.has(conn.id) ? 'reporting' : 'app');
        }
        return undefined;
      }),
    );
    const workerId = 'w-hygiene';
    const session = await s.worker.registerWorker({ workerId, host: 'h', pid: 1, role: 'test' });
    const signal = new AbortController().signal;
    const attempt = (taskId: number) => ({ taskId, attempt: 1, workerId, session: tds.logins(isWorker).at(-1)!.spid, parents: [] });
    await s.worker.runSql(attempt(1), 'SELECT 1', signal);
    expect(tds.logins(isWorker)).toHaveLength(1);
    await s.worker.runSql(attempt(2), "EXECUTE AS USER = 'reporting'; SELECT 1", signal);
    // the clean-up saw another database user: the connection was replaced, and the new one tagged
    const logins = tds.logins(isWorker);
    expect(logins).toHaveLength(2);
    expect(logins[1]!.requests.some(isTag)).toBe(true);
    expect(session.session).toBe(logins[0]!.spid);
  });
});

describe('live state', () => {
  it('a DMV query that fails leaves the running list readable, and says why', async () => {
    const s = await open(
      replier((req) => {
        if (req.text.includes("SERVERPROPERTY('EngineEdition')")) return { sets: [{ columns: [['edition', 'int']], rows: [[3]] }] };
        if (req.text.includes('HAS_PERMS_BY_NAME')) {
          return {
            sets: [
              {
                columns: [
                  ['view_state', 'int'],
                  ['perf_state', 'int'],
                  ['can_kill', 'int'],
                ],
                rows: [[0, 1, 0]],
              },
            ],
          };
        }
        if (req.text.includes('sys.dm_exec_requests'))
          return { error: { number: 208, message: "Invalid object name 'sys.dm_exec_requests'." } };
        // ExecutionStatus from readpast's tables: nothing runs
        if (req.text.includes('readpast.ExecutionStatus')) return { sets: [{ columns: [['log_id', 'bigint']], rows: [] }] };
        return undefined;
      }),
    );
    expect(await s.reads.listRunning()).toEqual([]);
    const status = await s.sqlServer.liveStatus();
    expect(status.available).toBe(false);
    expect(status.reason).toMatch(/could not be read: Invalid object name 'sys.dm_exec_requests'/);
  });
});

describe('a login raced when it goes unanswered (raceCreate)', () => {
  const later = <T>(ms: number, v: T, fail = false) =>
    new Promise<T>((res, rej) => setTimeout(() => (fail ? rej(new Error(String(v))) : res(v)), ms));

  it('a refused login fails at once, with no second attempt', async () => {
    let n = 0;
    await expect(
      raceCreate(
        () => (n++, Promise.reject(new Error('ECONNREFUSED'))),
        async () => {},
        50,
      ),
    ).rejects.toThrow('ECONNREFUSED');
    expect(n).toBe(1);
  });

  it('a swallowed login gets another attempt beside it; the first to answer wins, a late one is closed', async () => {
    const closed: string[] = [];
    const attempts = ['hung', 'quick'];
    const got = await raceCreate(
      () => {
        const a = attempts.shift() ?? 'more';
        return a === 'hung' ? later(300, a) : later(10, a);
      },
      async (c) => void closed.push(c),
      50,
    );
    expect(got).toBe('quick');
    await sleep(350);
    expect(closed).toEqual(['hung']);
  });

  it('a slow login that answers is never abandoned; it fails only when every attempt has failed', async () => {
    let n = 0;
    expect(
      await raceCreate(
        () => (n++ === 0 ? later(120, 'slow') : later(1000, 'late')),
        async () => {},
        50,
      ),
    ).toBe('slow');
    // a network that swallows every attempt: new ones only within the window, then the last failure
    let m = 0;
    const began = Date.now();
    await expect(
      raceCreate(
        () => later(100, `fail ${++m}`, true),
        async () => {},
        20,
        100,
      ),
    ).rejects.toThrow(/fail/);
    expect(m).toBeGreaterThan(1);
    expect(m).toBeLessThanOrEqual(5);
    expect(Date.now() - began).toBeLessThan(400);
  });
});
