// For the contract suite on a shared SQL Server database: empty every readpast table between tests.
// Never called by the store itself. The tables are read from the catalog (every table of the readpast
// schema), so a table a later migration adds is emptied too; migrations.test.ts checks that against the
// CREATE TABLE statements of the migrations.
import { sql } from '../connection';
import { FORGET_VERSION, MIGRATE_RECORD, RESET_CATALOG, resetTablesSql } from '../sql/migrations';
import { parseMssqlUrl, toConfig } from '../url';

export interface ResetTable {
  name: string;
  /** the name as QUOTENAME returns it */
  quoted: string;
}

export interface ForeignKey {
  /** the referencing table */
  child: string;
  /** the referenced table */
  parent: string;
}

/**
 * The order to empty `tables` in: a table before every table it references (so no DELETE conflicts with a
 * foreign key), by name otherwise. A cycle of foreign keys between tables is refused, naming them.
 */
export function resetOrder(tables: readonly ResetTable[], fks: readonly ForeignKey[]): ResetTable[] {
  const left = new Map(tables.map((t) => [t.name, t]));
  const edges = fks.filter((f) => f.child !== f.parent && left.has(f.child) && left.has(f.parent));
  const out: ResetTable[] = [];
  while (left.size) {
    // a table no table still left references
    const free = [...left.keys()].filter((n) => !edges.some((e) => e.parent === n && left.has(e.child))).sort();
    if (!free.length) throw new Error(`foreign keys form a cycle between ${[...left.keys()].sort().join(', ')}`);
    for (const n of free) {
      out.push(left.get(n)!);
      left.delete(n);
    }
  }
  return out;
}

async function withTestPool<T>(url: string, fn: (pool: InstanceType<typeof sql.ConnectionPool>) => Promise<T>): Promise<T> {
  const pool = new sql.ConnectionPool(toConfig(parseMssqlUrl(url), { appName: 'readpast tests', pool: { min: 0, max: 1 } }));
  // an unhandled 'error' event on a pool ends the process
  pool.on('error', () => {});
  await pool.connect();
  try {
    return await fn(pool);
  } finally {
    await pool.close();
  }
}

export async function emptyTables(url: string): Promise<void> {
  await withTestPool(url, async (pool) => {
    const r = await pool.request().query(RESET_CATALOG);
    const [tables, fks] = r.recordsets as unknown as [ResetTable[], ForeignKey[]];
    await pool.request().batch(resetTablesSql(resetOrder(tables, fks).map((t) => t.quoted)));
  });
}

/** Record migration `version` as a newer readpast would (`present`), or forget it again. */
export async function recordVersion(url: string, version: number, present: boolean): Promise<void> {
  await withTestPool(url, async (pool) => {
    const req = pool.request().input('version', sql.Int, version);
    if (present) await req.input('name', sql.NVarChar(200), 'a newer readpast (test)').query(MIGRATE_RECORD);
    else await req.query(FORGET_VERSION);
  });
}
