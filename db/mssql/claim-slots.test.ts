// One claim for every idle slot, in one round trip (claim.ts, sql/claim.ts): a real pool of eight workers on the
// SQL Server store, with the real driver, against the stand-in TDS endpoint. The procedure's own rounds run only on a
// server (mssql.contract.test.ts, the claim-model and claim-rules contract tests); here: what goes over the wire, and
// that each task is recorded with the session of the worker that runs it.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../lib/engine/handlers';
import { Pool } from '../../lib/engine/pool';
import { CLAIM } from './sql/claim';
import { CLAIM_COLUMNS, claimRow, claimSlotsOf, isClaimRequest } from './test-support/replies';
import type { FakeConnection, FakeReplier, FakeRequest, FakeTds } from './test-support/fake-tds';
import { asApp, closeFakeStoresAfter, openFakeStore } from './test-support/fake-store';
import type { MssqlStore } from './store';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const isWorker = /^readpast worker /;

let tds: FakeTds;
let pool: Pool | null = null;

afterEach(() => closeFakeStoresAfter(pool));

let nextId = 1;
/** A handler task for each slot the claim names, with the session the claim names for it. */
function fill(req: FakeRequest, conn: FakeConnection, ms: number) {
  const rows = claimSlotsOf(req, conn).map((slot) => claimRow(nextId++, slot, { payload: { ms } }));
  return {
    sets: [
      { columns: CLAIM_COLUMNS, rows },
      { columns: [['batch_id', 'bigint']] as const, rows: [] },
    ],
  };
}

async function open(more: FakeReplier, log?: (m: string) => void): Promise<MssqlStore> {
  const opened = await openFakeStore(asApp(more), { wakeMs: 0, ...(log && { log }) });
  tds = opened.tds;
  return opened.store;
}

describe('one claim for every idle slot', () => {
  it('the procedure fills the slots of its list in order, one transaction per task, stopping at the first that finds nothing', () => {
    expect(CLAIM).toContain("CROSS APPLY OPENJSON(j.value) WITH (worker_id nvarchar(256) '$.workerId', session int '$.session') AS s");
    expect(CLAIM).toContain('WHILE @slot_n IS NOT NULL AND @done = 0');
    // each attempt logged with its slot's worker and session, not the claiming connection's
    expect(CLAIM).toContain('SELECT c.id, c.attempts, c.queue, c.kind, c.command, @worker_id, @session, c.token_no');
    expect(CLAIM).not.toMatch(/@worker_id, @@SPID/);
    // a slot that finds nothing ends the claim; a won slot commits before the next one starts
    expect(CLAIM).toMatch(/IF @won = 0\s+-- [^\n]*\n\s+SET @done = 1;/);
    const commit = CLAIM.indexOf('COMMIT TRANSACTION;');
    expect(commit).toBeGreaterThan(0);
    expect(commit).toBeLessThan(CLAIM.indexOf('SET @slot_n = (SELECT MIN(s.n) FROM @slot_list AS s WHERE s.n > @slot_n);'));
  });

  it('a pool of eight idle workers sends one claim request per tick, naming the eight slots', async () => {
    const s = await open(() => undefined);
    const pollMs = 200;
    pool = new Pool(s, defaultRegistry(), { concurrency: 8, maintenance: false, heartbeatMs: 1000, pollMs, leaseMs: 30_000 });
    await pool.start();
    const from = Date.now();
    for (let i = 0; i < 500 && tds.requests(isWorker).filter(isClaimRequest).length < 10; i++) await sleep(10);
    const span = Date.now() - from;
    const claims = tds.requests(isWorker).filter(isClaimRequest);
    expect(claims.length).toBeGreaterThanOrEqual(10);
    // no more than one per poll interval (and the first, at start)
    expect(claims.length).toBeLessThanOrEqual(Math.ceil(span / pollMs) + 2);
    const ids = pool.workerIds().sort();
    for (const c of claims)
      expect(
        claimSlotsOf(c, tds.logins(isWorker)[0]!)
          .map((x) => x.workerId)
          .sort(),
      ).toEqual(ids);
    // all on one connection: the first slot's
    expect(
      new Set(
        tds
          .logins(isWorker)
          .filter((l) => l.requests.some(isClaimRequest))
          .map((l) => l.id),
      ).size,
    ).toBe(1);
  });

  it('a claim that fails after it committed some slots: their tasks still start, the claim is not sent again', async () => {
    let handed = false;
    const logged: string[] = [];
    const store = await open(
      (req, conn) => {
        if (!isClaimRequest(req) || handed) return undefined;
        handed = true;
        // a result set per slot filled, then the error that ended the batch (a deadlock on the third slot's round)
        const [a, b] = claimSlotsOf(req, conn);
        return {
          sets: [a!, b!].map((slot) => ({ columns: CLAIM_COLUMNS, rows: [claimRow(nextId++, slot, { payload: { ms: 1000 } })] })),
          error: { number: 1205, message: 'Transaction (Process ID 57) was deadlocked on lock resources' },
        };
      },
      (m) => logged.push(m),
    );
    pool = new Pool(store, defaultRegistry(), { concurrency: 4, maintenance: false, heartbeatMs: 1000, pollMs: 200, leaseMs: 30_000 });
    await pool.start();
    for (let i = 0; i < 300 && pool.busy < 2; i++) await sleep(10);
    expect(pool.busy).toBe(2);
    // the two committed tasks run; the claim that returned them was not retried (that would claim two more for them)
    for (let i = 0; i < 300 && tds.requests(isWorker).filter(isClaimRequest).length < 2; i++) await sleep(10);
    const claims = tds.requests(isWorker).filter(isClaimRequest);
    expect(claimSlotsOf(claims[0]!, tds.logins(isWorker)[0]!)).toHaveLength(4);
    // the next one (the poll's) names the two workers left idle: the first was not sent again for all four
    expect(claimSlotsOf(claims[1]!, tds.logins(isWorker)[0]!)).toHaveLength(2);
    expect(logged.some((m) => /claim failed after it claimed 2 task/.test(m))).toBe(true);
  });

  it('one request starts eight tasks, each recorded with the session of the worker that runs it', async () => {
    let handed = false;
    const s = await open((req, conn) => {
      if (!isClaimRequest(req) || handed) return undefined;
      handed = true;
      return fill(req, conn, 1000);
    });
    pool = new Pool(s, defaultRegistry(), { concurrency: 8, maintenance: false, heartbeatMs: 1000, pollMs: 200, leaseMs: 30_000 });
    await pool.start();
    for (let i = 0; i < 300 && pool.busy < 8; i++) await sleep(10);
    expect(pool.busy).toBe(8);
    const claims = tds.requests(isWorker).filter(isClaimRequest);
    const first = claims[0]!;
    const claimer = tds.logins(isWorker).find((l) => l.requests.includes(first))!;
    const spidOf = new Map(tds.logins(isWorker).map((l) => [l.appName.replace(/^readpast worker /, ''), l.spid]));
    const slots = claimSlotsOf(first, claimer);
    expect(slots).toHaveLength(8);
    // every slot's session is its own worker connection's SPID (the claimer's: this session, @@SPID)
    for (const slot of slots) expect(slot.session, slot.workerId).toBe(spidOf.get(slot.workerId));
    expect(new Set(slots.map((x) => x.session)).size).toBe(8);
  });
});
