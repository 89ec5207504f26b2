// The upgrade path's test on SQL Server (upgrade.test.ts): a representative row in every table of the schema at
// some version, the catalog two databases are compared by, and the drop of the schema between versions. Values
// are parameters; table and column names are QUOTENAME'd by the server from the catalog (checked here).
import { randomUUID } from 'node:crypto';
import type { ConnectionPool } from '../connection';
import { CATALOG_SNAPSHOT, DROP_READPAST_SCHEMA, FILL_COLUMNS } from '../sql/catalog';

export const PENDING_TOKEN = '7e5f8a9b-0c1d-4e3f-8a4b-0190a1b2c3d4';
export const DONE_TOKEN = '7e5f8a9b-0c1d-4e3f-8a4b-0190a1b2c3d5';
export const UPGRADE_QUEUE = 'upgrade';

const NOW = new Date(Date.UTC(2026, 10, 1));
const QUOTED = /^\[(?:[^\]]|\]\])+\]$/;

/** Rows with meaning (as on SQLite, db/sqlite/test-support/upgrade.ts); the rest of each row from its types. */
const ROWS: Record<string, Record<string, unknown>[]> = {
  Queues: [{ name: UPGRADE_QUEUE, created_at: NOW }],
  Tasks: [
    {
      token: PENDING_TOKEN,
      queue: UPGRADE_QUEUE,
      kind: 'handler',
      command: 'demo.echo',
      payload: '{"upgraded":true}',
      status: 'pending',
      run_after: new Date(0),
      max_attempts: 3,
      created_at: NOW,
    },
    {
      token: DONE_TOKEN,
      queue: UPGRADE_QUEUE,
      kind: 'handler',
      command: 'demo.echo',
      status: 'succeeded',
      run_after: new Date(0),
      attempts: 1,
      max_attempts: 3,
      created_at: NOW,
      started_at: NOW,
      finished_at: NOW,
      result: '{"ok":1}',
      worker_id: 'w-old',
    },
  ],
  ExecutionLog: [
    {
      task_id: 2,
      attempt: 1,
      queue: UPGRADE_QUEUE,
      kind: 'handler',
      command: 'demo.echo',
      started_at: NOW,
      ended_at: NOW,
      outcome: 'succeeded',
    },
  ],
  QueueCounts: [
    { queue: UPGRADE_QUEUE, status: 'pending', n: 1 },
    { queue: UPGRADE_QUEUE, status: 'succeeded', n: 1 },
  ],
  Workers: [{ worker_id: 'w-old', state: 'stopped', heartbeat_at: NOW, started_at: NOW, stopped_at: NOW, login_time: NOW }],
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
      next_fire_at: new Date(Date.UTC(2099, 0, 1)),
      source: 'api',
    },
  ],
  AlertRules: [
    {
      name: 'upgrade-rule',
      kind: 'task_dead',
      params: '{}',
      url: 'http://127.0.0.1:9/hook',
      format: 'json',
      dedup_ms: 60_000,
      enabled: false,
    },
  ],
  TaskEdges: [{ parent_id: 2, child_id: 1, on_parent_failure: 'cancel', done: true }],
  CodeObjects: [],
};

interface FillColumn {
  table_name: string;
  quoted_table: string;
  column_name: string;
  quoted_column: string;
  type_name: string;
  max_length: number;
  optional: number;
}

function filler(c: FillColumn): unknown {
  const t = c.type_name;
  if (/int$/.test(t)) return 1;
  if (t === 'bit') return true;
  if (t === 'decimal' || t === 'numeric' || t === 'float' || t === 'real') return 1;
  if (t.startsWith('datetime') || t === 'date') return NOW;
  if (t === 'uniqueidentifier') return randomUUID();
  if (t.includes('binary')) return Buffer.from([1]);
  const chars = c.max_length < 0 ? 20 : t.startsWith('n') ? c.max_length / 2 : c.max_length;
  return `${c.column_name}-1`.slice(0, Math.max(1, chars));
}

/** Insert ROWS (or one row from the columns' types) into every table that is empty. Returns rows per table. */
export async function fillEveryTable(pool: ConnectionPool): Promise<Record<string, number>> {
  const cols = (await pool.request().query<FillColumn>(FILL_COLUMNS)).recordset;
  const byTable = new Map<string, FillColumn[]>();
  for (const c of cols) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c]);
  const counts: Record<string, number> = {};
  for (const [table, columns] of byTable) {
    const quoted = columns[0]!.quoted_table;
    if (!QUOTED.test(quoted) || columns.some((c) => !QUOTED.test(c.quoted_column))) throw new Error(`not a quoted name in ${table}`);
    const count = async () =>
      Number((await pool.request().query<{ n: number }>(`SELECT COUNT(*) AS n FROM readpast.${quoted};`)).recordset[0]!.n);
    if ((await count()) === 0) {
      for (const given of ROWS[table] ?? [{}]) {
        const req = pool.request();
        const names: string[] = [];
        for (const c of columns) {
          if (!(c.column_name in given) && c.optional) continue;
          const v = c.column_name in given ? given[c.column_name] : filler(c);
          req.input(`p${names.length}`, v);
          names.push(c.quoted_column);
        }
        const values = names.map((_, i) => `@p${i}`).join(', ');
        await req.query(
          names.length
            ? `INSERT INTO readpast.${quoted} (${names.join(', ')}) VALUES (${values});`
            : `INSERT INTO readpast.${quoted} DEFAULT VALUES;`,
        );
      }
    }
    counts[table] = await count();
  }
  return counts;
}

type Rows = Record<string, unknown>[];

/** The catalog of schema readpast, as two databases are compared by (column order aside: see upgrade.test.ts). */
export async function mssqlCatalog(pool: ConnectionPool) {
  const r = await pool.request().query(CATALOG_SNAPSHOT);
  const [columns, indexes, indexColumns, constraints, modules] = r.recordsets as unknown as Rows[];
  const keyOf = (rows: Rows, ...keys: string[]) => rows!.map((row) => Object.fromEntries(keys.map((k) => [k, row[k] ?? null])));
  const colsOf = new Map<string, string[]>();
  for (const c of indexColumns!) {
    const list = colsOf.get(String(c.index_name)) ?? [];
    list.push(`${c.is_included_column ? 'INCLUDE ' : ''}${String(c.column_name)}${c.is_descending_key ? ' DESC' : ''}`);
    colsOf.set(String(c.index_name), list);
  }
  return {
    columns: columns,
    indexes: indexes!.map((i) => ({ ...i, columns: colsOf.get(String(i.index_name)) ?? [] })),
    constraints: keyOf(constraints!, 'constraint_name', 'type', 'table_name', 'check_definition', 'column_name'),
    modules: keyOf(modules!, 'name', 'type', 'definition_hash'),
  };
}

/** Drop schema readpast with everything in it (the upgrade test's own database only). */
export async function dropReadpast(pool: ConnectionPool): Promise<void> {
  await pool.request().batch(DROP_READPAST_SCHEMA);
}
