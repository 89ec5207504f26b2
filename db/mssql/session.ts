// A worker's own connection: a pool of exactly one connection (min 1, max 1), so its claims and
// its sql and procedure tasks run on one session whose SPID goes into ExecutionLog. The session
// is tagged with CONTEXT_INFO (and the connection's application name carries the worker id) so a
// DBA can map sys.dm_exec_sessions / requests rows to workers and tasks. If the driver replaces
// the connection (dropped, killed), the next use notices, re-tags it and reports the new session.
// After a task's own T-SQL the session is put back, or replaced when it cannot be: an open
// transaction, another database, or another security context (EXECUTE AS, SETUSER, an application role).
import { call, query, requestWithTimeout, sql, type ConnectionPool, type Param, type Shared } from './connection';
import { schemaMissing } from './errors';
import { SESSION_CLEANUP, SESSION_TAG } from './sql/session';
import { toConfig } from './url';

export interface SessionInfo {
  session: number;
  /** as the server keeps it (its local time, read as if UTC): compared with sys.dm_exec_sessions, never shown */
  loginTime: Date;
  db: string;
  /** the security context of the fresh connection: SUSER_SNAME() and USER_NAME() */
  login: string | null;
  user: string | null;
}

/** What SESSION_CLEANUP reports after a task. */
export interface CleanupRow {
  trancount: number;
  db: string;
  original_login: string | null;
  login_name: string | null;
  user_name: string | null;
}

/**
 * Why a session cannot be handed to the next task after a clean-up (null: it can). A transaction
 * still open, another database, or a security context other than the fresh connection's: a login
 * impersonated (EXECUTE AS LOGIN: SUSER_SNAME() is no longer ORIGINAL_LOGIN()), or another
 * database user (EXECUTE AS USER, SETUSER, sp_setapprole: USER_NAME() changed). None of these can be
 * undone by a statement of ours in general (an application role without its cookie cannot be left,
 * nested EXECUTE AS need as many REVERTs, with cookies), so the connection is replaced.
 */
export function sessionProblem(fresh: SessionInfo | null, now: CleanupRow | undefined): string | null {
  if (!now) return 'the clean-up returned nothing';
  if (now.trancount !== 0) return `${now.trancount} transaction(s) still open`;
  const login = (name: string | null) => name ?? '(none)';
  if (!fresh) {
    // nothing to compare with: the login that connected is the one to run as
    return now.login_name === now.original_login
      ? null
      : `running as login ${login(now.login_name)}, not ${login(now.original_login)} (EXECUTE AS LOGIN)`;
  }
  if (now.db !== fresh.db) return `database changed to ${now.db} (was ${fresh.db})`;
  // compared with the fresh connection, not ORIGINAL_LOGIN() itself: for some logins (a contained
  // database user, say) the two names differ from the start
  if (now.login_name !== fresh.login) return `running as login ${login(now.login_name)}, not ${login(fresh.login)} (EXECUTE AS LOGIN)`;
  if (now.user_name !== fresh.user) {
    return `running as database user ${login(now.user_name)}, not ${login(fresh.user)} (EXECUTE AS USER, SETUSER or an application role)`;
  }
  return null;
}

const ascii = (s: string) => Buffer.from(s.replace(/[^\x20-\x7e]/g, '?'), 'latin1');

/** CONTEXT_INFO of an idle worker session: `rp;w=<worker id>` (at most 128 bytes). */
export function idleTag(workerId: string): Buffer {
  return ascii(`rp;w=${workerId}`).subarray(0, 128);
}

/** The prefix that identifies one attempt: `rp;t=<task id>;a=<attempt>;` (what KILL checks). */
export function attemptTag(taskId: number, attempt: number): Buffer {
  return ascii(`rp;t=${taskId};a=${attempt};`);
}

/** CONTEXT_INFO while an attempt runs: the attempt prefix, then the worker id. */
export function taskTag(taskId: number, attempt: number, workerId: string): Buffer {
  return Buffer.concat([attemptTag(taskId, attempt), ascii(`w=${workerId}`)]).subarray(0, 128);
}

export class WorkerConnection {
  private pool: ConnectionPool | null = null;
  private generation = 0;
  private taggedGeneration = -1;
  info: SessionInfo | null = null;
  private closed = false;
  /** the connection is being replaced on purpose (not a drop) */
  private replacing = false;

  constructor(
    private readonly shared: Pick<Shared, 'target' | 'log' | 'openPool' | 'statementTimeoutMs'>,
    readonly workerId: string,
    /**
     * called when the session is first known and whenever it changes (`expected`: replaced on
     * purpose); may run statements on this connection (it is ready by then)
     */
    private readonly onSession: (info: SessionInfo, previous: SessionInfo | null, expected: boolean) => Promise<void>,
  ) {}

  private log(message: string, err?: unknown): void {
    this.shared.log(`worker ${this.workerId}: ${message}`, err);
  }

  private makePool(): ConnectionPool {
    const cfg = toConfig(this.shared.target, {
      appName: `readpast worker ${this.workerId}`,
      pool: { min: 1, max: 1 },
      // our own statements on it (tags, clean-up, claims); a task's own work has no bound
      requestTimeout: this.shared.statementTimeoutMs,
    });
    cfg.beforeConnect = () => {
      this.generation++;
    };
    return this.shared.openPool(cfg, `worker ${this.workerId}`);
  }

  private async ready(): Promise<ConnectionPool> {
    if (this.closed) throw new Error(`worker ${this.workerId}: its connection is closed`);
    if (!this.pool) {
      const pool = this.makePool();
      this.pool = pool;
      try {
        await pool.connect();
      } catch (err) {
        this.pool = null;
        await pool.close().catch(() => {});
        throw err;
      }
    }
    return this.pool;
  }

  /** Open the connection, tag it and learn its session. */
  async open(): Promise<SessionInfo> {
    return this.tag(idleTag(this.workerId));
  }

  /** The driver made a new connection since the session was last tagged. */
  get replaced(): boolean {
    return this.generation !== this.taggedGeneration;
  }

  /** Set CONTEXT_INFO and read SPID / login time; reports a changed session. */
  async tag(tag: Buffer): Promise<SessionInfo> {
    const pool = await this.ready();
    const r = await query<{ session: number; login_time: Date; db: string; login_name: string | null; user_name: string | null }>(
      pool,
      SESSION_TAG,
      [['tag', sql.VarBinary(128), tag]],
    );
    const row = r.recordset[0];
    if (!row) throw new Error('SQL Server did not describe this session');
    const fresh = this.taggedGeneration !== this.generation || !this.info;
    this.taggedGeneration = this.generation;
    // the security context is learnt from a fresh connection only: later tags keep it, so that a
    // context a task left behind is never taken for the connection's own
    const info: SessionInfo = {
      session: row.session,
      loginTime: row.login_time,
      db: row.db,
      login: fresh ? (row.login_name ?? null) : (this.info?.login ?? null),
      user: fresh ? (row.user_name ?? null) : (this.info?.user ?? null),
    };
    const previous = this.info;
    this.info = info;
    const expected = this.replacing;
    this.replacing = false;
    if (!previous || previous.session !== info.session || previous.loginTime.getTime() !== info.loginTime.getTime()) {
      await this.onSession(info, previous, expected);
    }
    return info;
  }

  /** Make sure the session is tagged as idle and current (after a reconnect). */
  async ensureCurrent(): Promise<SessionInfo> {
    if (!this.info || this.replaced) return this.tag(idleTag(this.workerId));
    return this.info;
  }

  /** An installed procedure of ours on this session (`requestTimeout`: its own, ms). */
  async call<T = Record<string, unknown>>(name: string, params: readonly Param[], requestTimeout?: number) {
    return call<T>(await this.ready(), name, params, requestTimeout);
  }

  /**
   * An installed procedure of ours on this session, its result sets read as they arrive (stream mode): when it fails
   * after some came — a claim that committed some slots and was then cut short — they are returned with the error.
   */
  async callStreamed(
    name: string,
    params: readonly Param[],
    requestTimeout: number,
  ): Promise<{ sets: Record<string, unknown>[][]; error: unknown }> {
    const req = requestWithTimeout(await this.ready(), requestTimeout);
    for (const [n, type, value] of params) req.input(n, type, value);
    req.stream = true;
    const sets: Record<string, unknown>[][] = [];
    let error: unknown = null;
    req.on('recordset', () => sets.push([]));
    req.on('row', (row: Record<string, unknown>) => sets.at(-1)?.push(row));
    req.on('error', (e: unknown) => {
      error ??= e;
    });
    await req.execute(name).catch((e: unknown) => {
      error ??= e;
    });
    return { sets, error: error === null ? null : (schemaMissing(error) ?? error) };
  }

  /** A parameterised statement of ours on this session. */
  async query<T = Record<string, unknown>>(text: string, params: readonly Param[]) {
    return query<T>(await this.ready(), text, params);
  }

  /**
   * Run a task's own work on this session: tag it with the attempt, run, then always put the
   * session back (roll back what the task left open, reset settings, tag idle). `fresh`: the work
   * may leave state no statement can reset (temp tables, cursors, session context, app locks),
   * so the connection is replaced afterwards instead.
   */
  async withTask<T>(tag: Buffer, fn: (pool: ConnectionPool, info: SessionInfo) => Promise<T>, fresh = false): Promise<T> {
    const info = await this.tag(tag);
    try {
      return await fn(await this.ready(), info);
    } finally {
      if (fresh) {
        this.replacing = true;
        await this.reset();
        await this.tag(idleTag(this.workerId)).catch((err: unknown) => this.log('reconnect failed', err));
      } else {
        await this.cleanup();
      }
    }
  }

  /** Session clean-up after a task; a session that cannot be made clean is replaced. */
  async cleanup(): Promise<void> {
    try {
      const pool = await this.ready();
      const r = await pool.request().batch<CleanupRow>(SESSION_CLEANUP);
      const rows = r.recordsets as unknown as CleanupRow[][];
      const problem = sessionProblem(this.info, rows[rows.length - 1]?.[0]);
      if (problem) {
        this.log(`session not clean after a task (${problem}); reconnecting`);
        this.replacing = true;
        await this.reset();
      }
      await this.tag(idleTag(this.workerId));
    } catch (err) {
      this.log('session clean-up failed; reconnecting', err);
      await this.reset().catch(() => {});
    }
  }

  /** Drop this connection; the next use opens a fresh session. */
  async reset(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    this.taggedGeneration = -1;
    if (pool) await pool.close().catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    if (pool) await pool.close().catch(() => {});
  }
}
