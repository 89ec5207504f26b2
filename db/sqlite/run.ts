// Running `sql` tasks on SQLite: the text runs on the store's own connection (this process's one
// session, whichever attempt it is for). `procedure` tasks need SQL Server: they are refused at
// enqueue, and here too should one arrive. A sql text that names the parameter `@Parents` (or `$Parents`,
// `:Parents`) gets its task's parents and their results bound to it, as JSON text (parentsJson) — a bound
// value, never text pasted into the statement; a text that does not name it binds nothing.
import { TaskError } from '../../lib/engine/errors';
import { parentsJson } from '../../lib/engine/flows';
import type { ParentResult, SqlRunResult } from '../../lib/engine/types';
import { sqliteErrorNumber, type Db } from './connection';
import { ROLLBACK, TOTAL_CHANGES } from './sql/run';

const MAX_ROWS = 100;

/** The parameter a sql text reads its parents' results from (any of SQLite's three prefixes). */
const PARENTS_PARAM = /[@$:]Parents\b/;

export function runSql(db: Db, text: string, signal: AbortSignal, parents: readonly ParentResult[] = []): SqlRunResult {
  signal.throwIfAborted();
  // named parameters the statement does not have are ignored: a mention in a comment binds nothing
  const args: [{ Parents: string }] | [] = PARENTS_PARAM.test(text) ? [{ Parents: parentsJson(parents) }] : [];
  try {
    let stmt;
    try {
      stmt = db.prepare(text);
    } catch (err) {
      if (!/more than one statement/i.test(String((err as Error).message))) throw err;
      if (args.length) throw new TaskError('@Parents is bound to a single statement; this sql text has several', { retryable: false });
      const before = (db.prepare(TOTAL_CHANGES).get() as { n: number }).n;
      db.exec(text);
      const after = (db.prepare(TOTAL_CHANGES).get() as { n: number }).n;
      return { rowsAffected: after - before, rows: [] };
    }
    if (stmt.reader) {
      const rows: Record<string, unknown>[] = [];
      for (const row of stmt.iterate(...args) as Iterable<Record<string, unknown>>) {
        rows.push(row);
        if (rows.length >= MAX_ROWS) break;
      }
      return { rowsAffected: 0, rows };
    }
    return { rowsAffected: stmt.run(...args).changes, rows: [] };
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
