// A real worker pool (lib/engine/pool.ts) on the SQL Server store, with the real driver, against the
// stand-in TDS endpoint (test-support/fake-tds.ts) playing a server with a little state of its own: tasks, leases that
// expire on its clock, heartbeats that renew only live leases, finishes fenced on the lease. Then the
// outages seen in production: the server restarting (every connection reset mid-request, the listener
// gone for a while, then back), and a failover that leaves every open connection silent without a FIN.
// What must hold: the first claim within 2 s of the server answering again, and no attempt lost whose
// worker lived through an outage shorter than its lease.
import { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultRegistry } from '../../lib/engine/handlers';
import type { Logger } from '../../lib/engine/logger';
import { Pool } from '../../lib/engine/pool';
import { CANCEL_TIMEOUT_MS, KEEPALIVE_MS } from './connection';
import { CLAIM_COLUMNS, claimRow, claimSlotsOf } from './test-support/replies';
import { sessionRow, type FakeConnection, type FakeReply, type FakeRequest, type FakeTds } from './test-support/fake-tds';
import { closeFakeStoresAfter, openFakeStore } from './test-support/fake-store';
import { heartbeatTimeoutMs } from './workers';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** How long the listener stays gone (the production run: 30 s; shorter here, and under the lease). */
const OUTAGE_MS = Number(process.env.READPAST_TEST_OUTAGE_MS ?? 3000);
/** longer than the outage, with room for the heartbeat after it */
const LEASE_MS = Math.max(8000, 2 * OUTAGE_MS + 2000);
/** the long tasks run through the outage and end after it */
const TASK_MS = OUTAGE_MS + 6000;

interface ModelTask {
  id: number;
  status: 'pending' | 'running' | 'done';
  worker: string | null;
  attempt: number;
  leaseUntil: number;
}

/** The server's side: what CLAIM, HEARTBEAT and FINISH would do to readpast's tables, on its clock. */
class Server {
  readonly tasks: ModelTask[] = [];
  /** claims answered (when, on which worker's connection, with how many tasks) */
  readonly claims: { at: number; worker: string; got: number }[] = [];
  readonly beats: { at: number; conn: number }[] = [];
  readonly finishes: { at: number; taskId: number; ok: boolean }[] = [];

  constructor(n: number) {
    for (let i = 1; i <= n; i++) this.tasks.push({ id: i, status: 'pending', worker: null, attempt: 0, leaseUntil: 0 });
  }

  reply = (req: FakeRequest, conn: FakeConnection): FakeReply | undefined => {
    const now = Date.now();
    if (req.text.includes('SET CONTEXT_INFO @tag')) return { sets: [sessionRow(conn, { login_name: 'app', user_name: 'app' })] };
    if (req.text.includes('readpast.Claim_')) {
      // every idle slot in one request: a pending task for each, in order, until none is left
      const rows: unknown[][] = [];
      for (const slot of claimSlotsOf(req, conn)) {
        const t = this.tasks.find((x) => x.status === 'pending');
        if (!t) break;
        Object.assign(t, { status: 'running', worker: slot.workerId, attempt: t.attempt + 1, leaseUntil: now + LEASE_MS });
        rows.push(claimRow(t.id, slot, { payload: { ms: TASK_MS }, attempt: t.attempt }));
      }
      this.claims.push({ at: now, worker: conn.appName.replace(/^readpast worker /, ''), got: rows.length });
      return { sets: [claimSet(rows), { columns: [['batch_id', 'bigint']], rows: [] }] };
    }
    if (req.text.includes('readpast.Heartbeat_')) {
      this.beats.push({ at: now, conn: conn.id });
      const owned: number[] = [];
      for (const m of req.text.matchAll(/\{"taskId":(\d+),"workerId":"([^"]+)","attempt":(\d+)\}/g)) {
        const t = this.tasks.find((x) => x.id === Number(m[1]));
        if (t && t.status === 'running' && t.worker === m[2] && t.attempt === Number(m[3]) && t.leaseUntil >= now) {
          t.leaseUntil = now + LEASE_MS;
          if (!owned.includes(t.id)) owned.push(t.id);
        }
      }
      return {
        sets: [
          {
            columns: [
              ['id', 'bigint'],
              ['cancel_requested', 'bit'],
            ],
            rows: owned.map((id) => [id, false]),
          },
        ],
      };
    }
    if (req.text.includes('readpast.Finish_')) {
      const rows: unknown[][] = [];
      for (const m of req.text.matchAll(/\{"ord":(\d+),"taskId":(\d+),"workerId":"([^"]+)","attempt":(\d+)/g)) {
        const t = this.tasks.find((x) => x.id === Number(m[2]));
        const ok = !!t && t.status === 'running' && t.worker === m[3] && t.attempt === Number(m[4]) && t.leaseUntil >= now;
        if (ok) t.status = 'done';
        this.finishes.push({ at: now, taskId: Number(m[2]), ok });
        rows.push([Number(m[1]), ok ? 1 : 0, 0]);
      }
      return {
        sets: [
          {
            columns: [
              ['ord', 'int'],
              ['ok', 'int'],
              ['frees', 'int'],
            ],
            rows,
          },
          { columns: [['batch_id', 'bigint']], rows: [] },
        ],
      };
    }
    return undefined;
  };
}

const claimSet = (rows: unknown[][]) => ({ columns: CLAIM_COLUMNS, rows });

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const noop = () => {};
  return { warnings, debug: noop, info: noop, error: noop, warn: (_o, m) => warnings.push(m ?? '') };
}

let tds: FakeTds;
let pool: Pool | null = null;

afterEach(() => closeFakeStoresAfter(pool));

/**
 * Three long tasks running on a pool of four (the fourth keeps claiming), against `server`;
 * `statementTimeoutMs`: the store's bound on claims and finishes (default 15 s).
 */
async function running(server: Server, statementTimeoutMs?: number): Promise<ReturnType<typeof capture>> {
  const opened = await openFakeStore(server.reply, { wakeMs: 0, statementTimeoutMs });
  tds = opened.tds;
  const log = capture();
  pool = new Pool(opened.store, defaultRegistry(), {
    concurrency: 4,
    maintenance: false,
    heartbeatMs: 500,
    pollMs: 300,
    leaseMs: LEASE_MS,
    logger: log,
  });
  await pool.start();
  for (let i = 0; i < 300 && pool.busy < 3; i++) await sleep(10);
  expect(pool.busy).toBe(3);
  // a moment of normal running: every connection of the store open, some of them idle in their pools
  await sleep(600);
  return log;
}

/** The first claim the server answered at or after `from` (waits up to `withinMs` for it). */
async function firstClaimAfter(server: Server, from: number, withinMs: number): Promise<number | null> {
  for (let waited = 0; waited < withinMs; waited += 20) {
    const c = server.claims.find((x) => x.at >= from);
    if (c) return c.at - from;
    await sleep(20);
  }
  return null;
}

/** Wait for the three long tasks to be settled; what was accepted, what was lost. */
async function settled(server: Server, log: ReturnType<typeof capture>) {
  for (let i = 0; i < 800 && server.finishes.filter((f) => f.taskId <= 3).length < 3; i++) await sleep(20);
  const lost = log.warnings.filter((w) => /lost its lease|lease was lost/.test(w));
  return {
    accepted: server.finishes
      .filter((f) => f.ok)
      .map((f) => f.taskId)
      .sort(),
    lost,
  };
}

describe('an outage shorter than the lease (the real driver and pool against a stand-in server)', () => {
  it(
    `a server restart — connections reset mid-request, the listener gone ${OUTAGE_MS} ms: claims resume within 2 s, no attempt lost`,
    async () => {
      const server = new Server(3);
      const log = await running(server);
      await tds.stop({ reset: true });
      await sleep(OUTAGE_MS);
      await tds.start();
      const back = Date.now();
      const first = await firstClaimAfter(server, back, 10_000);
      console.log(`restart: first claim ${first} ms after the server was back`);
      expect(first).not.toBeNull();
      expect(first!).toBeLessThan(2000);
      const r = await settled(server, log);
      expect(r.lost).toEqual([]);
      expect(r.accepted).toEqual([1, 2, 3]);
    },
    30_000 + 2 * OUTAGE_MS,
  );

  it('a failover leaving every open connection silent (no FIN): noticed well within the lease, claims resume, none lost', async () => {
    const server = new Server(3);
    // claims and finishes bounded by 2.5 s here (a deployment may choose so; 15 s by default)
    const STATEMENT_MS = 2500;
    const log = await running(server, STATEMENT_MS);
    const cut = Date.now();
    expect(tds.freeze()).toBeGreaterThan(0);
    // the new primary answers at once: what is measured is how long the old connections hold the workers
    const beat = await (async () => {
      for (let i = 0; i < 1000; i++) {
        const b = server.beats.find((x) => x.at > cut);
        if (b) return b.at - cut;
        await sleep(20);
      }
      return null;
    })();
    const first = await firstClaimAfter(server, cut, 15_000);
    console.log(`half-open: first heartbeat ${beat} ms, first claim ${first} ms after the cut`);
    // noticed after the heartbeat's timeout (a third of the lease) and the unanswered cancel, then a beat's
    // interval and a login: in time to renew every lease
    const beatBound = heartbeatTimeoutMs(LEASE_MS) + CANCEL_TIMEOUT_MS + 1500;
    expect(beatBound).toBeLessThan(LEASE_MS * 0.7);
    expect(beat).not.toBeNull();
    expect(beat!).toBeLessThan(beatBound);
    // a claim sent on the dead connection waits for its own timeout; the next one gets a new connection
    expect(first).not.toBeNull();
    expect(first!).toBeLessThan(Math.max(beatBound, STATEMENT_MS + CANCEL_TIMEOUT_MS + 1500));
    const r = await settled(server, log);
    expect(r.lost).toEqual([]);
    expect(r.accepted).toEqual([1, 2, 3]);
  }, 40_000);

  it('a dead connection is not handed out again: once one is found dead, the others idle since then are replaced', async () => {
    const server = new Server(0);
    const slow = new Set<number>();
    // finishes bounded by 1 s; four at once open four connections of the shared pool, idle afterwards
    const { tds, store: s } = await openFakeStore(
      (req, conn) => (slow.has(conn.id) ? { ...server.reply(req, conn), delayMs: 300 } : server.reply(req, conn)),
      { wakeMs: 0, statementTimeoutMs: 1000 },
    );
    const result = { taskId: 1, workerId: 'w', attempt: 1, settlement: { kind: 'succeeded', result: null } } as const;
    for (let i = 1; i <= 20; i++) slow.add(i);
    await Promise.all([1, 2, 3, 4].map(() => s.worker.finish([result])));
    slow.clear();
    expect(tds.logins('readpast').length).toBeGreaterThanOrEqual(4);
    tds.freeze();
    const times: number[] = [];
    for (let i = 0; i < 4; i++) {
      const began = Date.now();
      await s.worker.finish([result]).catch(() => {});
      times.push(Date.now() - began);
    }
    console.log(`finishes after the cut: ${times.join(', ')} ms`);
    // the first waits for its timeout and the unanswered cancel; the next ones get new connections
    expect(times[0]!).toBeGreaterThanOrEqual(900);
    expect(times[0]!).toBeLessThan(3000);
    for (const t of times.slice(1)) expect(t).toBeLessThan(500);
  }, 30_000);

  it('every connection of the store has TCP keep-alive after a short idle time (not tedious’s 30 s)', async () => {
    const spy = vi.spyOn(Socket.prototype, 'setKeepAlive');
    try {
      const server = new Server(0);
      const { tds, store } = await openFakeStore(server.reply, { wakeMs: 0 });
      await store.worker.registerWorker({ workerId: 'w-ka', host: 'h', pid: 1, role: 'test' });
      await store.worker.heartbeat({ workerIds: ['w-ka'], running: [], leaseMs: 30_000 });
      await store.worker.finish([{ taskId: 1, workerId: 'w-ka', attempt: 1, settlement: { kind: 'succeeded', result: null } }]);
      // the shared pool, the worker's own connection and the heartbeats': each socket's last word is ours
      const last = new Map<unknown, unknown[]>();
      spy.mock.calls.forEach((args, i) => last.set(spy.mock.contexts[i], args));
      expect(tds.logins().length).toBe(3);
      expect(last.size).toBe(3);
      for (const args of last.values()) expect(args).toEqual([true, KEEPALIVE_MS]);
    } finally {
      spy.mockRestore();
    }
  });

  it('a claim that times out on a live but slow server leaves its session: the next claim runs on a new one', async () => {
    const server = new Server(1);
    let slowClaims = 1;
    const { tds, store } = await openFakeStore(
      (req, conn) =>
        req.text.includes('readpast.Claim_') && slowClaims-- > 0 ? { sets: [claimSet([])], delayMs: 1600 } : server.reply(req, conn),
      { wakeMs: 0, statementTimeoutMs: 1000 },
    );
    const reg = await store.worker.registerWorker({ workerId: 'w-slow', host: 'h', pid: 1, role: 'test' });
    const slot = { workerId: 'w-slow', session: reg.session };
    // claims bounded by 1 s here: the first is cut short (the server acknowledges the cancel)
    await expect(store.worker.claim([slot], { leaseMs: 3000 })).rejects.toThrow(/Timeout|1000ms/);
    const claimed = await store.worker.claim([slot], { leaseMs: 3000 });
    expect(claimed.map((t) => t.id)).toEqual([1]);
    const logins = tds.logins(/^readpast worker /);
    expect(logins).toHaveLength(2);
    expect(logins[1]!.requests.some((r) => r.text.includes('readpast.Claim_'))).toBe(true);
  });
});
