// The SQL Server extras: the procedure catalog's view of a procedure, whether the server's own state
// of running tasks can be shown (sys.dm_exec_sessions / requests, joined to ExecutionStatus in
// reads.ts), and an operator's KILL of the session running a task. Live state is judged by the
// login's permissions and then by running its query once; when that query fails later (a permission
// revoked, a timeout, a DMV a stand-in lacks) the running list is read without it and says why.
import { ConflictError } from '../../lib/engine/errors';
import type { KillResult, SqlServerExtras } from '../../lib/engine/ports';
import type { AttemptResult, LiveStatus, ProcedureParameter, RunningView } from '../../lib/engine/types';
import { query, sql, type ConnectionPool, type Shared } from './connection';
import { serverMessage } from './errors';
import type { ProcedureCatalog } from './procs';
import { listRunningLive, listRunningPlain } from './reads';
import { UUID } from './rows';
import { attemptTag } from './session';
import * as S from './sql/live';
import { toConfig } from './url';

export interface Capabilities {
  /** may see other sessions' requests (VIEW SERVER STATE / VIEW DATABASE STATE on Azure SQL Database) */
  liveStatus: boolean;
  liveReason: string | null;
  /** may KILL other sessions (ALTER ANY CONNECTION / KILL DATABASE CONNECTION on Azure SQL Database) */
  kill: boolean;
  killReason: string | null;
  azure: boolean;
}

/** The permissions a login has, as PERMISSIONS_SERVER / PERMISSIONS_AZURE answer (1, 0, or null: unknown to this server). */
export interface PermissionRow {
  view_state: number | null;
  perf_state: number | null;
  can_kill: number | null;
}

/**
 * What the login may see and do, from its permissions (pure). KILL needs two things: the permission to
 * kill (ALTER ANY CONNECTION; KILL DATABASE CONNECTION on Azure SQL Database), and to see the task's
 * session in sys.dm_exec_sessions — without VIEW SERVER STATE (VIEW DATABASE STATE on Azure SQL
 * Database; VIEW SERVER PERFORMANCE STATE from SQL Server 2022, as for the live columns) a login sees
 * only its own session there, so the check that the session is still the attempt's would never match and
 * nothing would be killed. Each reason names what is missing and how to grant it.
 */
export function judgePermissions(row: PermissionRow | undefined, azure: boolean, login: string | null = null): Capabilities {
  const liveStatus = row?.view_state === 1 || row?.perf_state === 1;
  const killPermission = row?.can_kill === 1;
  const state = azure ? 'VIEW DATABASE STATE (or VIEW DATABASE PERFORMANCE STATE)' : 'VIEW SERVER STATE (or VIEW SERVER PERFORMANCE STATE)';
  const who = `[${(login ?? 'the dashboard login').replace(/]/g, ']]')}]`;
  const missing: string[] = [];
  const grants: string[] = [];
  if (!killPermission) {
    missing.push(azure ? 'KILL DATABASE CONNECTION' : 'ALTER ANY CONNECTION');
    grants.push(azure ? `GRANT KILL DATABASE CONNECTION TO ${who}` : `USE master; GRANT ALTER ANY CONNECTION TO ${who}`);
  }
  if (!liveStatus) {
    missing.push(`${azure ? 'VIEW DATABASE STATE' : 'VIEW SERVER STATE'} (to see the task's session in sys.dm_exec_sessions)`);
    grants.push(azure ? `GRANT VIEW DATABASE STATE TO ${who}` : `USE master; GRANT VIEW SERVER STATE TO ${who}`);
  }
  const kill = missing.length === 0;
  return {
    liveStatus,
    liveReason: liveStatus ? null : `this login lacks ${state}: live request state (waits, blocking, CPU) is not shown`,
    kill,
    killReason: kill
      ? null
      : `this login lacks ${missing.join(' and ')}: KILL is not available (cancel still works); to allow it: ${grants.join('; ')}`,
    azure,
  };
}

/**
 * Ask the server what this login may see and do. Never throws: a failed check means "no" (and says
 * why). Live state needs VIEW SERVER STATE, or on SQL Server 2022+ VIEW SERVER PERFORMANCE STATE (on
 * Azure SQL Database the DATABASE forms); HAS_PERMS_BY_NAME answers NULL for a permission the server
 * does not know, so asking for the 2022 one on an older server is harmless.
 */
export async function detectCapabilities(pool: ConnectionPool): Promise<Capabilities & { checked: boolean }> {
  try {
    const edition = (await query<{ edition: number | null }>(pool, S.ENGINE_EDITION)).recordset[0]?.edition ?? null;
    const azure = edition === 5;
    const row = (await query<PermissionRow & { principal: string | null }>(pool, azure ? S.PERMISSIONS_AZURE : S.PERMISSIONS_SERVER))
      .recordset[0];
    return { ...judgePermissions(row, azure, row?.principal ?? null), checked: true };
  } catch (err) {
    const why = `could not check permissions: ${message(err)}`;
    return { liveStatus: false, liveReason: why, kill: false, killReason: why, azure: false, checked: false };
  }
}

/**
 * A failure of the KILL path as an operator's answer (409, naming the permission or view), or null
 * for any other error: 6102 KILL refused; 297 / 300 / 229 a DMV or object this login may not read;
 * 208 a DMV this server does not have.
 */
export function killRefusal(err: unknown, azure: boolean): string | null {
  const m = serverMessage(err);
  const kill = azure ? 'KILL DATABASE CONNECTION' : 'ALTER ANY CONNECTION';
  const view = azure ? 'VIEW DATABASE STATE' : 'VIEW SERVER STATE';
  if (m.number === 6102) return `the server refused KILL: this login lacks ${kill}`;
  if (m.number === 297 || m.number === 300 || (m.number === 229 && /dm_exec_sessions/i.test(m.message))) {
    return `this login may not read sys.dm_exec_sessions: it lacks ${view}`;
  }
  if (m.number === 208 && /dm_exec_sessions/i.test(m.message)) return 'this server has no sys.dm_exec_sessions: KILL is not available';
  return null;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim().slice(0, 300);

/** How long a judgement on live state holds before it is made again (a permission granted or revoked meanwhile). */
export const LIVE_RECHECK_MS = 60_000;

/** ExecutionStatus read two ways: with the server's request state (which may fail), and from readpast's tables alone. */
export interface RunningQueries {
  live(): Promise<RunningView[]>;
  plain(): Promise<RunningView[]>;
}

/**
 * Whether the server's request state can be shown, and the running list with it where it can. The
 * judgement — the login's permissions, then the live query run once — is kept LIVE_RECHECK_MS; a
 * live query that fails meanwhile turns it to "not available" with the error as the reason, and
 * the list is read from readpast's own tables. Nothing here throws for live state's sake.
 */
export class LiveState {
  private judged: { status: LiveStatus; at: number } | null = null;
  private judging: Promise<{ status: LiveStatus; rows: RunningView[] | null }> | null = null;

  constructor(
    private readonly permissions: () => Promise<
      Pick<Capabilities, 'liveStatus' | 'liveReason'> & Partial<Pick<Capabilities, 'kill' | 'killReason'>> & { checked: boolean }
    >,
    private readonly queries: RunningQueries,
    private readonly now: () => number = Date.now,
  ) {}

  private fresh(): LiveStatus | null {
    return this.judged && this.now() - this.judged.at < LIVE_RECHECK_MS ? this.judged.status : null;
  }

  /** Judge afresh: permissions, then the query itself (its rows are handed on, not thrown away). */
  private judge(): Promise<{ status: LiveStatus; rows: RunningView[] | null }> {
    this.judging ??= (async () => {
      try {
        const caps = await this.permissions();
        // KILL, as judged with the permissions (the Running page disables it with the reason)
        const kill = caps.kill === undefined ? {} : { canKill: caps.kill, killRefusal: caps.kill ? null : (caps.killReason ?? null) };
        let status: LiveStatus;
        let rows: RunningView[] | null = null;
        if (caps.checked && !caps.liveStatus) status = { available: false, reason: caps.liveReason, ...kill };
        else {
          try {
            rows = await this.queries.live();
            // the permissions could not be checked, yet the query runs: show what it sees, and say so
            status = { available: true, reason: caps.checked ? null : caps.liveReason, ...kill };
          } catch (err) {
            status = { available: false, reason: `live request state could not be read: ${message(err)}`, ...kill };
          }
        }
        this.judged = { status, at: this.now() };
        return { status, rows };
      } finally {
        this.judging = null;
      }
    })();
    return this.judging;
  }

  async status(): Promise<LiveStatus> {
    return this.fresh() ?? (await this.judge()).status;
  }

  /** The running list, with the server's request state where it can be read now. */
  async running(): Promise<RunningView[]> {
    let status = this.fresh();
    if (!status) {
      const j = await this.judge();
      if (j.rows) return j.rows;
      status = j.status;
    }
    if (!status.available) return this.queries.plain();
    try {
      return await this.queries.live();
    } catch (err) {
      const { canKill, killRefusal } = status;
      this.judged = {
        status: { available: false, reason: `live request state could not be read: ${message(err)}`, canKill, killRefusal },
        at: this.now(),
      };
      return this.queries.plain();
    }
  }
}

export interface KillTarget {
  taskId: number;
  workerId: string;
  attempt: number;
  session: number;
  loginTime: Date;
}

export type KillCheck =
  | { ok: true; target: KillTarget }
  /** `unseen`: the attempt's session is not visible in sys.dm_exec_sessions (gone, or not visible to this login) */
  | { ok: false; result: 'not_found' | 'conflict'; reason: string | null; unseen?: boolean };

/**
 * Find the session running a task's current attempt and check it is still that login (login time),
 * as the server sees it. Only sql and procedure tasks run on their session; a handler task's
 * session is idle, so killing it would stop nothing.
 */
export async function killTarget(pool: ConnectionPool, token: string): Promise<KillCheck> {
  const r = await query<{
    task_id: string | number;
    status: string;
    kind: string;
    attempts: number;
    worker_id: string | null;
    session: number | null;
    login_time: Date | null;
    live_session: number | null;
  }>(pool, S.KILL_TARGET, [['token', sql.UniqueIdentifier, token]]);
  const row = r.recordset[0];
  if (!row) return { ok: false, result: 'not_found', reason: null };
  if (row.status !== 'running') return { ok: false, result: 'conflict', reason: null };
  if (row.kind === 'handler') {
    return { ok: false, result: 'conflict', reason: 'a handler task does not run on its SQL Server session: cancel it instead' };
  }
  if (row.session === null || row.login_time === null || row.worker_id === null || row.live_session === null) {
    return {
      ok: false,
      result: 'conflict',
      reason:
        `session ${row.session ?? '?'} of this attempt is not visible as the same login (gone, reconnected, or ` +
        `this login lacks VIEW SERVER STATE)`,
      unseen: true,
    };
  }
  return {
    ok: true,
    target: {
      taskId: Number(row.task_id),
      workerId: row.worker_id,
      attempt: row.attempts,
      session: row.session,
      loginTime: row.login_time,
    },
  };
}

/** KILL the session if it is still the same login and still tagged with the attempt. */
export async function killIfStillTagged(pool: ConnectionPool, t: KillTarget): Promise<boolean> {
  const r = await query<{ killed: number }>(pool, S.killSql(t.session), [
    ['login_time', sql.DateTime, t.loginTime],
    ['tag', sql.VarBinary(128), attemptTag(t.taskId, t.attempt)],
  ]);
  return r.recordset[0]?.killed === 1;
}

/** A KILL path's error: a ConflictError naming the missing permission or view, or the error as it was. */
function refused(err: unknown, azure: boolean): unknown {
  const why = killRefusal(err, azure);
  return why ? new ConflictError(why) : err;
}

/** The extras of one store: procedures, live state, permissions for KILL (asked again at each KILL), the operator's KILL. */
export class Live implements Omit<SqlServerExtras, 'setAllowSql'> {
  private caps: Promise<Capabilities> | null = null;
  private killing: Promise<ConnectionPool> | null = null;
  private readonly state: LiveState;

  constructor(
    private readonly shared: Shared,
    private readonly procs: ProcedureCatalog,
    private readonly finish: (results: AttemptResult[]) => Promise<boolean[]>,
  ) {
    this.state = new LiveState(async () => detectCapabilities(await shared.pool()), {
      live: () => listRunningLive(shared),
      plain: () => listRunningPlain(shared),
    });
  }

  /** ExecutionStatus, with the server's request state where it can be read (ReadModel.listRunning). */
  running(): Promise<RunningView[]> {
    return this.state.running();
  }

  /** Always asks the catalog afresh (the cache serves enqueue). */
  async describeProcedure(name: string): Promise<ProcedureParameter[] | null> {
    return (await this.procs.describe(name, true))?.params ?? null;
  }

  liveStatus(): Promise<LiveStatus> {
    return this.state.status();
  }

  capabilities(): Promise<Capabilities> {
    this.caps ??= this.shared
      .pool()
      .then(detectCapabilities)
      .catch((err: unknown) => {
        this.caps = null;
        throw err;
      });
    return this.caps;
  }

  /**
   * KILL the session running a sql or procedure task: the attempt is first settled as cancelled
   * (token released; fenced, so the worker's late settlement cannot overwrite it), then the session
   * is killed if it is still that login and still tagged with that attempt (if it moved on, the
   * attempt is over and there is nothing left to kill). The worker's driver opens a new connection
   * on its next use and the worker row follows.
   */
  async killSession(token: string): Promise<KillResult> {
    if (!UUID.test(token)) return 'not_found';
    const pool = await this.shared.pool();
    // asked afresh: a permission granted or revoked since the last KILL counts now
    const caps = await detectCapabilities(pool);
    this.caps = Promise.resolve(caps);
    let check: KillCheck;
    try {
      check = await killTarget(pool, token);
    } catch (err) {
      throw refused(err, caps.azure);
    }
    if (!check.ok) {
      // a session this login cannot see: say what it lacks, where it lacks something
      if (check.unseen && !caps.kill && caps.killReason) throw new ConflictError(caps.killReason);
      if (check.reason) throw new ConflictError(check.reason);
      return check.result;
    }
    if (!caps.kill) throw new ConflictError(caps.killReason ?? 'this login may not KILL sessions');
    const t = check.target;
    const [ok] = await this.finish([
      {
        taskId: t.taskId,
        workerId: t.workerId,
        attempt: t.attempt,
        settlement: { kind: 'cancelled', error: { number: null, message: `killed by an operator (KILL ${t.session})`, detail: null } },
      },
    ]);
    if (!ok) return 'conflict';
    try {
      await killIfStillTagged(await this.killPool(), t);
    } catch (err) {
      const e = refused(err, caps.azure);
      if (e instanceof ConflictError) {
        throw new ConflictError(`${e.message}; the attempt is recorded as cancelled, but its statement runs on until it ends`);
      }
      throw e;
    }
    return 'killed';
  }

  /** KILL runs on a pool of its own: never a worker's session, never behind the dashboard's queries. */
  private killPool(): Promise<ConnectionPool> {
    this.killing ??= this.shared
      .openPool(toConfig(this.shared.target, { appName: 'readpast kill', pool: { min: 0, max: 1 } }), 'KILL connection')
      .connect()
      .catch((err: unknown) => {
        this.killing = null;
        throw err;
      });
    return this.killing;
  }

  async close(): Promise<void> {
    const k = this.killing;
    this.killing = null;
    if (k) await k.then((p) => p.close()).catch(() => {});
  }
}
