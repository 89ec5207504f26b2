// A worker's own connection: a pool of exactly one connection (min 1, max 1), so its claims and
// its sql and procedure tasks run on one session whose SPID goes into ExecutionLog. The session
// is tagged with CONTEXT_INFO (and the connection's application name carries the worker id) so a
// DBA can map sys.dm_exec_sessions / requests rows to workers and tasks. If the driver replaces
// the connection (dropped, killed), the next use notices, re-tags it and reports the new session.
import { query, sql, type ConnectionPool, type Logger, type Param } from './connection';
import { SESSION_CLEANUP, SESSION_TAG } from './sql/session';
import { toConfig, type MssqlTarget } from './url';

/** Our own statements on a worker session (claims, tags) give up after this long. */
export const INTERNAL_TIMEOUT_MS = 30_000;

export interface SessionInfo {
  session: number;
  loginTime: Date;
  db: string;
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
    private readonly target: MssqlTarget,
    readonly workerId: string,
    /** called when the session is first known and whenever it changes (`expected`: replaced on purpose) */
    private readonly onSession: (info: SessionInfo, previous: SessionInfo | null, expected: boolean) => Promise<void>,
    private readonly log: Logger = () => {},
  ) {}

  private makePool(): ConnectionPool {
    const cfg = toConfig(this.target, {
      appName: `readpast worker ${this.workerId}`,
      pool: { min: 1, max: 1 },
      requestTimeout: INTERNAL_TIMEOUT_MS,
    });
    cfg.validateConnection = 'socket';
    cfg.beforeConnect = () => {
      this.generation++;
    };
    const pool = new sql.ConnectionPool(cfg);
    pool.on('error', (err: unknown) => this.log(`worker ${this.workerId}: connection error`, err));
    return pool;
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
    const r = await query<{ session: number; login_time: Date; db: string }>(pool, SESSION_TAG, [['tag', sql.VarBinary(128), tag]]);
    const row = r.recordset[0];
    if (!row) throw new Error('SQL Server did not describe this session');
    this.taggedGeneration = this.generation;
    const info: SessionInfo = { session: row.session, loginTime: row.login_time, db: row.db };
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
        await this.tag(idleTag(this.workerId)).catch((err: unknown) => this.log(`worker ${this.workerId}: reconnect failed`, err));
      } else {
        await this.cleanup();
      }
    }
  }

  /** Session clean-up after a task; a session that cannot be made clean is replaced. */
  async cleanup(): Promise<void> {
    try {
      const pool = await this.ready();
      const r = await pool.request().batch<{ trancount: number; db: string }>(SESSION_CLEANUP);
      const rows = r.recordsets as unknown as { trancount: number; db: string }[][];
      const last = rows[rows.length - 1]?.[0];
      if (!last || last.trancount !== 0 || (this.info && last.db !== this.info.db)) {
        this.log(
          `worker ${this.workerId}: session not clean after a task (transactions ${last?.trancount}, database ` +
            `changed: ${last?.db !== this.info?.db}); reconnecting`,
        );
        this.replacing = true;
        await this.reset();
      }
      await this.tag(idleTag(this.workerId));
    } catch (err) {
      this.log(`worker ${this.workerId}: session clean-up failed; reconnecting`, err);
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
