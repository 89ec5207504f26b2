// What an idle pool costs each store: a real pool (maintenance on, the default timers) over a store with no task
// ready, for a while, counting what reaches the database — on SQLite every statement executed and every write
// transaction opened (better-sqlite3's own Statement and transaction, counted where they run), on SQL Server every
// request the stand-in TDS endpoint receives (test-support/fake-tds.ts). Claims and heartbeats are told apart from
// the rest: what is left should be reads only. Used by the idle tests (sqlite/idle.test.ts, mssql/idle.test.ts) and
// printed by `npm run bench` (db/contract/idle-bench.ts).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { defaultRegistry } from '../../lib/engine/handlers';
import { Pool } from '../../lib/engine/pool';
import type { MaintenancePort, WorkerPort } from '../../lib/engine/ports';
import { openMssqlStore } from '../mssql/store';
import { FakeTds, sessionRow, type FakeRequest } from '../mssql/test-support/fake-tds';
import { isClaimRequest } from '../mssql/test-support/replies';
import { openSqliteStore } from '../sqlite/store';

export interface IdleFigures {
  store: 'sqlite' | 'mssql';
  /** how long it was watched (after a start-up settled) */
  seconds: number;
  pollMs: number;
  /** claims sent (SQLite: WorkerPort.claim calls; SQL Server: claim requests) */
  claims: number;
  /** claims per poll interval */
  claimsPerPoll: number;
  heartbeatsPerMinute: number;
  /** statements (SQL Server: requests) that write, other than the claims' and the heartbeats' */
  writesPerMinute: number;
  /** SQLite: write transactions (BEGIN IMMEDIATE: the file's write lock) other than the claims' and heartbeats' */
  writeTransactionsPerMinute: number | null;
  /** reads other than the claims' (maintenance's checks, the wake-up long poll) */
  readsPerMinute: number;
  /** what wrote, by the first words of its statement */
  writers: Record<string, number>;
}

export interface IdleOptions {
  seconds: number;
  pollMs?: number;
  concurrency?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const perMinute = (n: number, seconds: number) => Math.round((n / seconds) * 60 * 10) / 10;
const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 60);

/** The port methods a pool calls, wrapped so that whatever runs inside them is told apart (SQLite runs them synchronously). */
function tracked(port: WorkerPort, inside: { method: string | null }, calls: Map<string, number>): WorkerPort {
  const wrap =
    <A extends unknown[], R>(name: string, fn: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      const was = inside.method;
      inside.method = name;
      try {
        return fn(...a);
      } finally {
        inside.method = was;
      }
    };
  return {
    ...port,
    claim: wrap('claim', port.claim.bind(port)),
    heartbeat: wrap('heartbeat', port.heartbeat.bind(port)),
  };
}

/** Run a pool with maintenance over `ports` for the warm-up and then `seconds`; `mark(true)` starts the watch, `mark(false)` ends it. */
async function watch(
  ports: { worker: WorkerPort; maintenance: MaintenancePort },
  opts: IdleOptions,
  mark: (on: boolean) => void,
): Promise<{ seconds: number; pollMs: number }> {
  const pollMs = opts.pollMs ?? 500;
  const pool = new Pool({ ...ports, description: 'idle' }, defaultRegistry(), {
    concurrency: opts.concurrency ?? 4,
    pollMs,
    maintenance: true,
  });
  await pool.start();
  // start-up writes (registering, the first depth sample) are not idle costs
  await sleep(2500);
  mark(true);
  const t0 = Date.now();
  await sleep(opts.seconds * 1000);
  const seconds = (Date.now() - t0) / 1000;
  mark(false);
  await pool.stop(0);
  return { seconds, pollMs };
}

/** An idle pool on an embedded SQLite file in `dir`: statements and write transactions counted as they run. */
export async function idleSqlite(dir: string, opts: IdleOptions): Promise<IdleFigures> {
  const probe = new Database(':memory:');
  const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  const DbProto = Database.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const inside = { method: null as string | null };
  const calls = new Map<string, number>();
  let on = false;
  const count = { reads: 0, writes: 0, tx: 0 };
  const writers: Record<string, number> = {};
  const saved = { run: Statement.run!, get: Statement.get!, all: Statement.all!, iterate: Statement.iterate!, tx: DbProto.transaction! };
  for (const m of ['run', 'get', 'all', 'iterate'] as const) {
    const orig = saved[m];
    Statement[m] = function (this: { readonly: boolean; source: string }, ...a: unknown[]) {
      if (on && inside.method === null) {
        if (this.readonly) count.reads++;
        else {
          count.writes++;
          writers[label(this.source)] = (writers[label(this.source)] ?? 0) + 1;
        }
      }
      return orig.apply(this, a);
    };
  }
  DbProto.transaction = function (this: unknown, fn: unknown) {
    const t = saved.tx.call(this, fn) as ((...a: unknown[]) => unknown) & Record<string, (...a: unknown[]) => unknown>;
    const w = ((...a: unknown[]) => t(...a)) as typeof t;
    w.deferred = t.deferred!;
    w.exclusive = t.exclusive!;
    w.immediate = (...a: unknown[]) => {
      if (on && inside.method === null) count.tx++;
      return t.immediate!(...a);
    };
    return w;
  };
  try {
    const store = await openSqliteStore(join(dir, 'idle.db'));
    try {
      const worker = tracked(store.worker, inside, calls);
      let claimsAtMark = 0;
      let beatsAtMark = 0;
      let claimsAtEnd = 0;
      let beatsAtEnd = 0;
      const w = await watch({ worker, maintenance: store.maintenance }, opts, (start) => {
        on = start;
        if (start) {
          claimsAtMark = calls.get('claim') ?? 0;
          beatsAtMark = calls.get('heartbeat') ?? 0;
        } else {
          claimsAtEnd = calls.get('claim') ?? 0;
          beatsAtEnd = calls.get('heartbeat') ?? 0;
        }
      });
      const claims = claimsAtEnd - claimsAtMark;
      return {
        store: 'sqlite',
        seconds: Math.round(w.seconds * 10) / 10,
        pollMs: w.pollMs,
        claims,
        claimsPerPoll: Math.round((claims / ((w.seconds * 1000) / w.pollMs)) * 100) / 100,
        heartbeatsPerMinute: perMinute(beatsAtEnd - beatsAtMark, w.seconds),
        writesPerMinute: perMinute(count.writes, w.seconds),
        writeTransactionsPerMinute: perMinute(count.tx, w.seconds),
        readsPerMinute: perMinute(count.reads, w.seconds),
        writers,
      };
    } finally {
      await store.close();
    }
  } finally {
    on = false;
    Object.assign(Statement, { run: saved.run, get: saved.get, all: saved.all, iterate: saved.iterate });
    DbProto.transaction = saved.tx;
  }
}

/** A request that writes to readpast's tables (a table variable's INSERT does not count). */
export function writesTables(req: FakeRequest): boolean {
  const text = req.call?.statement ?? req.text;
  return (
    /\b(INSERT\s+INTO|DELETE\s+FROM|MERGE(\s+INTO)?)\s+readpast\./i.test(text) ||
    /\bUPDATE\s+readpast\./i.test(text) ||
    /\bUPDATE\s+\w+\s+SET\b[\s\S]*?\bFROM\s+readpast\./i.test(text) ||
    /readpast\.(Finish|Enqueue)_/.test(req.call?.procedure ?? '')
  );
}

/** An idle pool on the SQL Server store against the stand-in TDS endpoint (no task ever ready): requests counted. */
export async function idleMssql(opts: IdleOptions): Promise<IdleFigures> {
  const tds = new FakeTds((req, conn) => {
    if (req.text.includes('SET CONTEXT_INFO @tag')) return { sets: [sessionRow(conn, { login_name: 'app', user_name: 'app' })] };
    // the wake-up long poll: nothing new, after its wait
    if (conn.appName === 'readpast wake')
      return {
        delayMs: 1000,
        sets: [
          {
            columns: [
              ['top_id', 'bigint'],
              ['ready', 'bit'],
            ],
            rows: [[0, false]],
          },
        ],
      };
    return undefined;
  });
  await tds.start();
  try {
    const store = await openMssqlStore(tds.url(), { log: () => {}, migrate: false });
    try {
      let from = 0;
      let to = 0;
      const w = await watch({ worker: store.worker, maintenance: store.maintenance }, opts, (start) => {
        if (start) from = Date.now();
        else to = Date.now();
      });
      const seen = tds.requests().filter((r) => r.at >= from && r.at < to);
      const heartbeat = new Set(tds.requests('readpast heartbeat'));
      const claims = seen.filter(isClaimRequest);
      const rest = seen.filter((r) => !isClaimRequest(r) && !heartbeat.has(r));
      const writing = rest.filter(writesTables);
      const writers: Record<string, number> = {};
      for (const r of writing) {
        const k = label(r.call?.statement ?? r.call?.procedure ?? r.text);
        writers[k] = (writers[k] ?? 0) + 1;
      }
      return {
        store: 'mssql',
        seconds: Math.round(w.seconds * 10) / 10,
        pollMs: w.pollMs,
        claims: claims.length,
        claimsPerPoll: Math.round((claims.length / ((w.seconds * 1000) / w.pollMs)) * 100) / 100,
        heartbeatsPerMinute: perMinute(seen.filter((r) => heartbeat.has(r)).length, w.seconds),
        writesPerMinute: perMinute(writing.length, w.seconds),
        writeTransactionsPerMinute: null,
        readsPerMinute: perMinute(rest.length - writing.length, w.seconds),
        writers,
      };
    } finally {
      await store.close();
    }
  } finally {
    await tds.stop();
  }
}
