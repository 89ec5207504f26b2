// The upgrade path's tests on SQLite (upgrade.test.ts, cli/test/upgrade.test.ts): a file built at an earlier
// schema version, with a representative row in every table at that version, and the catalog two files are
// compared by.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

type Db = Database.Database;

/** The pending task every filled file holds: today's pool must claim and finish it after the upgrade. */
export const PENDING_TOKEN = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
export const DONE_TOKEN = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';
export const UPGRADE_QUEUE = 'upgrade';

const NOW = Date.UTC(2026, 10, 1);

/**
 * Rows with meaning (the rest of a row, and every table without an entry, is filled from its declared types):
 * a queue, a pending task of a built-in handler and a succeeded one with its attempt, counts that agree, and
 * rows whose values today's code parses (a schedule's cron, an alert rule's kind and parameters).
 */
const ROWS: Record<string, Record<string, unknown>[]> = {
  Queues: [{ name: UPGRADE_QUEUE, created_at: NOW }],
  Tasks: [
    {
      id: 1,
      token: PENDING_TOKEN,
      queue: UPGRADE_QUEUE,
      kind: 'handler',
      command: 'demo.echo',
      payload: '{"upgraded":true}',
      status: 'pending',
      run_after: 0,
      max_attempts: 3,
      created_at: NOW,
      concurrency_key: null,
      flow_id: null,
      blocked_by: null,
      fingerprint: null,
      schedule_name: null,
      schedule_fire_at: null,
      dedup_key: null,
      batch_id: null,
      stage: null,
      lease_until: null,
      worker_id: null,
      token_no: null,
      started_at: null,
      finished_at: null,
      error_number: null,
      error_message: null,
      error_detail: null,
      result: null,
      caller: null,
      timeout_ms: null,
    },
    {
      id: 2,
      token: DONE_TOKEN,
      queue: UPGRADE_QUEUE,
      kind: 'handler',
      command: 'demo.echo',
      payload: null,
      status: 'succeeded',
      run_after: 0,
      attempts: 1,
      max_attempts: 3,
      created_at: NOW,
      started_at: NOW,
      finished_at: NOW + 5,
      result: '{"ok":1}',
      worker_id: 'w-old',
      concurrency_key: null,
      flow_id: null,
      blocked_by: null,
      fingerprint: null,
      schedule_name: null,
      schedule_fire_at: null,
      dedup_key: null,
      batch_id: null,
      stage: null,
      lease_until: null,
      token_no: null,
      error_number: null,
      error_message: null,
      error_detail: null,
      caller: null,
      timeout_ms: null,
    },
  ],
  ExecutionLog: [
    {
      task_id: 2,
      attempt: 1,
      queue: UPGRADE_QUEUE,
      kind: 'handler',
      command: 'demo.echo',
      worker_id: 'w-old',
      started_at: NOW,
      ended_at: NOW + 5,
      outcome: 'succeeded',
      batch_id: null,
      stage: null,
      token_no: null,
      error_number: null,
      error_message: null,
      error_detail: null,
      abandon_reason: null,
    },
  ],
  QueueCounts: [
    { queue: UPGRADE_QUEUE, status: 'pending', n: 1 },
    { queue: UPGRADE_QUEUE, status: 'succeeded', n: 1 },
  ],
  Workers: [{ worker_id: 'w-old', state: 'stopped', heartbeat_at: NOW, started_at: NOW, stopped_at: NOW, queues: null }],
  Handlers: [{ name: 'demo.echo', seen_at: NOW }],
  QueueChanges: [{ queue: UPGRADE_QUEUE, at: NOW, changed_by: 'cli', field: 'paused', old_value: 'false', new_value: 'true' }],
  Schedules: [
    {
      name: 'upgrade-yearly',
      cron: '0 0 1 1 *',
      timezone: 'UTC',
      kind: 'handler',
      command: 'demo.echo',
      queue: UPGRADE_QUEUE,
      misfire: 'skip',
      overlap: 'allow',
      next_fire_at: Date.UTC(2099, 0, 1),
      source: 'api',
      created_at: NOW,
      updated_at: NOW,
      payload: null,
      max_attempts: null,
      timeout_ms: null,
      last_fire_at: null,
      last_token: null,
    },
  ],
  AlertRules: [
    {
      name: 'upgrade-rule',
      kind: 'task_dead',
      params: '{}',
      url: 'http://127.0.0.1:9/hook',
      secret: null,
      format: 'json',
      dedup_ms: 60_000,
      enabled: 0,
      cursor_at: null,
      cursor_id: null,
    },
  ],
  AlertFirings: [{ rule_id: 1, fired_at: NOW, task_token: null, test: 1, status: 'delivered' }],
  AttemptOutput: [{ task_id: 2, attempt: 1, percent: 100, progress_at: NOW, updated_at: NOW }],
  AttemptLogs: [{ task_id: 2, attempt: 1, seq: 1, at: NOW, stream: 'stdout', line: 'upgraded', bytes: 8 }],
  TaskEdges: [{ parent_id: 2, child_id: 1, on_parent_failure: 'cancel', done: 1 }],
  PoolSettings: [{ host: 'h', role: 'worker', size: 2 }],
};

interface Column {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

const columnsOf = (db: Db, table: string) => db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as Column[];

/** A value of a column's declared type. */
function filler(c: Column): unknown {
  const t = c.type.toUpperCase();
  if (t.includes('INT')) return 1;
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 1.5;
  return `${c.name}-1`;
}

/** The tables of the file (SchemaVersion and SQLite's own aside). */
export const tablesOf = (db: Db) =>
  (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'SchemaVersion' ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);

/**
 * Give every table of the file at least one row, as its schema at this version takes it: ROWS where it has
 * them (their columns the table does not have yet are left out), every other column from its declared type.
 * Returns how many rows each table then holds.
 */
export function fillEveryTable(db: Db): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const table of tablesOf(db)) {
    const cols = columnsOf(db, table);
    const have = (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
    if (have === 0) {
      for (const given of ROWS[table] ?? [{}]) {
        const row: Record<string, unknown> = {};
        for (const c of cols) {
          if (c.name in given) row[c.name] = given[c.name];
          else if (c.notnull && c.dflt_value === null) row[c.name] = filler(c);
        }
        // a table whose every column may be left out still gets values in each
        if (Object.keys(row).length === 0) for (const c of cols) row[c.name] = filler(c);
        const names = Object.keys(row);
        db.prepare(`INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
          ...names.map((n) => row[n]),
        );
      }
    }
    counts[table] = (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
  }
  return counts;
}

const squeeze = (sql: string | null) => (sql ?? '').replace(/\s+/g, ' ').trim();

/**
 * What two files are compared by: each table's columns (name, declared type, NOT NULL, default, key position)
 * and its definition (constraints included), each index with its columns and its partial WHERE (its
 * definition), each view and trigger by the sha-256 of its text. Whitespace in definitions is not compared.
 */
export function sqliteCatalog(db: Db) {
  const objects = db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
    .all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
  const tables = Object.fromEntries(
    objects
      .filter((o) => o.type === 'table')
      .map((o) => [o.name, { columns: columnsOf(db, o.name).map((c) => ({ ...c })), definition: squeeze(o.sql) }]),
  );
  const indexes = Object.fromEntries(
    objects
      .filter((o) => o.type === 'index')
      .map((o) => [
        o.name,
        {
          table: o.tbl_name,
          columns: (
            db.prepare(`PRAGMA index_xinfo(${JSON.stringify(o.name)})`).all() as { name: string | null; desc: number; key: number }[]
          )
            .filter((c) => c.key)
            .map((c) => `${c.name ?? '<expr>'}${c.desc ? ' DESC' : ''}`),
          definition: squeeze(o.sql),
        },
      ]),
  );
  const code = Object.fromEntries(
    objects
      .filter((o) => o.type === 'view' || o.type === 'trigger')
      .map((o) => [
        o.name,
        `${o.type} ${createHash('sha256')
          .update(o.sql ?? '')
          .digest('hex')}`,
      ]),
  );
  return { tables, indexes, code };
}
