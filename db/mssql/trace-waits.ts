// The database span of a traced sql or procedure attempt on SQL Server (lib/engine/tracing-attempt.ts): the store
// tells it the database, the server and the session (SPID) that ran the work, and — when the login may read the
// DMVs — the longest wait and every blocking session seen while it ran. Seen by sampling the session's request
// (sql/live.ts SESSION_WAIT, one indexed DMV row) on the shared pool, never on the worker's own busy connection:
// once SAMPLE_FIRST_MS after the start, then every SAMPLE_MS. Only while the span records: an attempt that is not
// traced is never sampled. A sample that fails (a permission, a timeout) ends the sampling; the work goes on.
import type { RunningAttempt } from '../../lib/engine/ports';
import { sql, type Shared } from './connection';
import { SESSION_WAIT } from './sql/live';

export const SAMPLE_FIRST_MS = 100;
export const SAMPLE_MS = 1000;

interface WaitRow {
  wait_type: string | null;
  wait_time: number | null;
  blocking_session_id: number | null;
}

/** What the samples saw: the longest wait (by the time the session had waited on it then) and the blockers. */
export class WaitSamples {
  waitType: string | null = null;
  waitMs: number | null = null;
  readonly blockedBy = new Set<number>();

  add(rows: readonly WaitRow[]): void {
    for (const r of rows) {
      const ms = Number(r.wait_time ?? 0);
      if (r.wait_type && (this.waitMs === null || ms > this.waitMs)) {
        this.waitType = r.wait_type;
        this.waitMs = ms;
      }
      if (r.blocking_session_id && r.blocking_session_id > 0) this.blockedBy.add(r.blocking_session_id);
    }
  }
}

/** `db.namespace` of SQL Server: the database, after its instance when named (`instance|database`). */
export function namespaceOf(target: { instanceName: string | null; database: string | null }): string | null {
  if (!target.database) return null;
  return target.instanceName ? `${target.instanceName}|${target.database}` : target.database;
}

/** Run `fn` (the attempt's work), telling the attempt's database span what it ran on and what it waited for. */
export async function withWaitSampling<T>(shared: Shared, attempt: RunningAttempt, fn: () => Promise<T>): Promise<T> {
  const db = attempt.db;
  if (!db) return fn();
  db.report({ system: 'mssql', namespace: namespaceOf(shared.target), serverAddress: shared.target.server, session: attempt.session });
  const seen = new WaitSamples();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const sample = async () => {
    try {
      const r = await shared.query<WaitRow>(SESSION_WAIT, [['session', sql.SmallInt, attempt.session]]);
      seen.add(r.recordset);
    } catch {
      stopped = true;
    }
    if (!stopped) schedule(SAMPLE_MS);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => void sample(), ms);
    timer.unref?.();
  };
  schedule(SAMPLE_FIRST_MS);
  try {
    return await fn();
  } finally {
    stopped = true;
    if (timer) clearTimeout(timer);
    db.report({ waitType: seen.waitType, waitMs: seen.waitMs, blockedBy: [...seen.blockedBy] });
  }
}
