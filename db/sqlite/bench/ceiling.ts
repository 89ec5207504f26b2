// Ceilings for `npm run bench:peers`: what the embedded store's own schema allows when nothing but SQL
// runs — no validation, no engine, no handlers, no pool — on a file migrated by the store, with the store's
// connection settings. They tell a target the schema cannot reach from one the code has not reached yet:
//  - insertCeiling: the product's task rows (uuid v7 tokens, the store's multi-row INSERT) into the real
//    Tasks table with its indexes, 1,000 per transaction;
//  - drainPerTask: the store's own claim and settle statements as they are for a task claimed ahead (one claim
//    per task; one finish recording its start and one log row written whole), 64 tasks per claim transaction and
//    per settle transaction;
//  - drainLeast: the least any design keeping the Tasks row, its indexes and an ExecutionLog row per attempt
//    can write: 64 tasks claimed by one UPDATE … RETURNING, settled by one UPDATE, each attempt's log row
//    written once (at its end), one activity-series row per transaction.
import { openDatabase, type Db } from '../connection';
import { newToken } from '../tokens';
import { openSqliteStore } from '../store';
import * as C from '../sql/claim';
import { insertTasks, INSERT_CHUNKS, TASK_COLUMNS } from '../sql/enqueue';
import * as S from '../sql/settle';
import { ADD_METRICS } from '../sql/tally';

const CHUNK = INSERT_CHUNKS[0]!;
const PER_TX = 1_000;
const BATCH = 64;

/** A database file migrated by the store, opened bare with the store's settings, with its default queue. */
export async function migrated(file: string): Promise<Db> {
  const store = await openSqliteStore(file);
  await store.close();
  const db = openDatabase(file);
  db.exec("INSERT INTO Queues (name, created_at) VALUES ('default', 0) ON CONFLICT DO NOTHING");
  return db;
}

export const rowOf = (i: number, now: number) => [
  newToken(now),
  'default',
  'handler',
  'bench.noop',
  JSON.stringify({ i }),
  0,
  now,
  5,
  // timeout_ms, dedup_key, concurrency_key, caller, batch_id, stage
  null,
  null,
  null,
  null,
  null,
  null,
  now,
  // trace_parent, trace_state
  null,
  null,
];

function insert(db: Db, n: number): number {
  const st = db.prepare(insertTasks(CHUNK));
  const tx = db.transaction((from: number) => {
    const now = Date.now();
    for (let c = 0; c < PER_TX; c += CHUNK) {
      const params: unknown[] = [];
      for (let i = 0; i < CHUNK; i++) params.push(...rowOf(from + c + i, now));
      st.run(params);
    }
  });
  const t0 = performance.now();
  for (let done = 0; done < n; done += PER_TX) tx.immediate(done);
  return n / ((performance.now() - t0) / 1000);
}

/** Tasks/s: the product's rows inserted bare into the product's schema. */
export async function insertCeiling(file: string, n: number): Promise<number> {
  if (n % PER_TX !== 0 || PER_TX % CHUNK !== 0 || TASK_COLUMNS !== rowOf(0, 0).length) throw new Error('insertCeiling: bad sizes');
  const db = await migrated(file);
  try {
    return insert(db, n);
  } finally {
    db.close();
  }
}

interface Head {
  id: number;
  queue: string;
  kind: string;
  command: string;
  payload: string | null;
  attempts: number;
}

function drain(db: Db, claimTx: () => Head[], settleTx: (rows: Head[], startedAt: number) => void): number {
  let total = 0;
  const t0 = performance.now();
  for (;;) {
    const startedAt = Date.now();
    const rows = claimTx();
    if (rows.length === 0) break;
    for (const r of rows) if (r.payload !== null) JSON.parse(r.payload);
    settleTx(rows, startedAt);
    total += rows.length;
  }
  return total / ((performance.now() - t0) / 1000);
}

/** Tasks/s: the store's claim and settle statements as they are, one statement of each kind per task. */
export async function drainPerTask(file: string, n: number): Promise<number> {
  const db = await migrated(file);
  try {
    insert(db, n);
    const heads = db.prepare(C.UNBATCHED_HEADS);
    const claim = db.prepare(C.CLAIM_AHEAD);
    const finish = db.prepare(S.FINISH_SUCCEEDED);
    const log = db.prepare(S.LOG_ENDED_ATTEMPT);
    const metrics = db.prepare(ADD_METRICS);
    const claimTx = db.transaction(() => {
      const now = Date.now();
      const rows = heads.all({ excluded: '[]', noKey: '[]', queues: null, now, limit: BATCH }) as (Head & { run_after: number })[];
      for (const c of rows) claim.run('w-1', null, now + 30_000, c.id);
      return rows;
    });
    const settleTx = db.transaction((rows: Head[], started: number) => {
      const now = Date.now();
      for (const r of rows) {
        const a = r.attempts + 1;
        if (!finish.get(now, null, 'w-2', a, started, now, r.id, 'w-1', 'claimed', r.attempts, now))
          throw new Error('drainPerTask: a finish was refused');
        log.run(r.id, a, r.queue, r.kind, r.command, 'w-2', 2, null, null, null, started, now, 'succeeded', null, null, null);
      }
      metrics.run(Math.floor(now / 1000), 0, rows.length, rows.length, 0, 0, 0, 0);
    });
    return drain(
      db,
      () => claimTx.immediate(),
      (rows, started) => settleTx.immediate(rows, started),
    );
  } finally {
    db.close();
  }
}

/** Tasks/s: the least SQL that keeps the Tasks row, its indexes and one ExecutionLog row per attempt. */
export async function drainLeast(file: string, n: number): Promise<number> {
  const db = await migrated(file);
  try {
    insert(db, n);
    const claim = db.prepare(`UPDATE Tasks SET status = 'running', attempts = attempts + 1, worker_id = @worker, lease_until = @lease,
        started_at = @now, cancel_requested = 0
      WHERE id IN (SELECT t.id FROM Tasks t WHERE t.status = 'pending' AND t.batch_id IS NULL AND t.run_after <= @now
        ORDER BY t.priority DESC, t.id LIMIT @limit)
      RETURNING id, queue, kind, command, payload, attempts`);
    const finish = db.prepare(`UPDATE Tasks SET status = 'succeeded', finished_at = @now, result = NULL, lease_until = NULL
      WHERE id IN (SELECT value FROM json_each(@ids)) AND worker_id = @worker AND status = 'running' AND lease_until >= @now`);
    const log =
      db.prepare(`INSERT INTO ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, started_at, ended_at, outcome)
      SELECT r.value ->> 0, r.value ->> 1, 'default', 'handler', 'bench.noop', @worker, 1, @started, @now, 'succeeded'
      FROM json_each(@rows) r`);
    const metrics = db.prepare(ADD_METRICS);
    const claimTx = db.transaction(() => {
      const now = Date.now();
      const rows = claim.all({ worker: 'w-1', lease: now + 30_000, now, limit: BATCH }) as Head[];
      metrics.run(Math.floor(now / 1000), 0, rows.length, 0, 0, 0, 0, 0);
      return rows;
    });
    const settleTx = db.transaction((rows: Head[], started: number) => {
      const now = Date.now();
      finish.run({ now, worker: 'w-1', ids: JSON.stringify(rows.map((r) => r.id)) });
      log.run({ worker: 'w-1', started, now, rows: JSON.stringify(rows.map((r) => [r.id, r.attempts])) });
      metrics.run(Math.floor(now / 1000), 0, 0, rows.length, 0, 0, 0, 0);
    });
    return drain(
      db,
      () => claimTx.immediate(),
      (rows, started) => settleTx.immediate(rows, started),
    );
  } finally {
    db.close();
  }
}
