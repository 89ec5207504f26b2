// Running `sql` tasks on SQLite: the text runs on the store's own connection (this process's one
// session, whichever attempt it is for). `procedure` tasks need SQL Server: they are refused at
// enqueue, and here too should one arrive.
import { TaskError } from '../../lib/engine/errors';
import type { SqlRunResult } from '../../lib/engine/types';
import { sqliteErrorNumber, type Db } from './connection';
import { ROLLBACK, TOTAL_CHANGES } from './sql/run';

const MAX_ROWS = 100;

export function runSql(db: Db, text: string, signal: AbortSignal): SqlRunResult {
  signal.throwIfAborted();
  try {
    let stmt;
    try {
      stmt = db.prepare(text);
    } catch (err) {
      if (!/more than one statement/i.test(String((err as Error).message))) throw err;
      const before = (db.prepare(TOTAL_CHANGES).get() as { n: number }).n;
      db.exec(text);
      const after = (db.prepare(TOTAL_CHANGES).get() as { n: number }).n;
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
    if (db.inTransaction) db.exec(ROLLBACK);
  }
}

export async function runProcedure(): Promise<never> {
  throw new TaskError('procedure tasks need SQL Server (this store is sqlite)', { retryable: false });
}
