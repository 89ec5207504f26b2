// `sql` tasks on SQLite: the text runs on the store's own connection (this process's session).
import type { SqlRunResult } from '../../lib/engine/types';
import { sqliteErrorNumber, type Db } from './connection';

const MAX_ROWS = 100;

export function runSql(db: Db, text: string, signal: AbortSignal): SqlRunResult {
  signal.throwIfAborted();
  try {
    let stmt;
    try {
      stmt = db.prepare(text);
    } catch (err) {
      if (!/more than one statement/i.test(String((err as Error).message))) throw err;
      const before = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
      db.exec(text);
      const after = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
      return { rowsAffected: after - before, rows: [] };
    }
    if (stmt.reader) {
      const rows: Record<string, unknown>[] = [];
      for (const row of stmt.iterate() as Iterable<Record<string, unknown>>) {
        rows.push(row);
        if (rows.length >= MAX_ROWS) break;
      }
      return { rowsAffected: 0, rows };
    }
    return { rowsAffected: stmt.run().changes, rows: [] };
  } catch (err) {
    const e = err as Error & { code?: string; number?: number | null };
    e.number = sqliteErrorNumber(e.code);
    throw e;
  } finally {
    // leave the session clean for the next task, as on SQL Server
    if (db.inTransaction) db.exec('ROLLBACK');
  }
}
