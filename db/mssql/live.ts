// The SQL Server extras: the procedure catalog's view of a procedure, whether the server's own state
// of running tasks can be shown (sys.dm_exec_sessions / requests, joined to ExecutionStatus in
// reads.ts), and an operator's KILL of the session running a task. Live state is judged by the
// login's permissions and then by running its query once; when that query fails later (a permission
// revoked, a timeout, a DMV a stand-in lacks) the running list is read without it and says why.
import { ConflictError } from '../../lib/engine/errors';
import type { KillResult, SqlServerExtras } from '../../lib/engine/ports';
import type { AttemptResult, LiveStatus, ProcedureParameter, RunningView } from '../../lib/engine/types';
import { query, sql, type ConnectionPool, type Shared } from './connection';
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
    const row = (
      await query<{ view_state: number | null; perf_state: number | null; can_kill: number | null }>(
        pool,
        azure ? S.PERMISSIONS_AZURE : S.PERMISSIONS_SERVER,
      )
    ).recordset[0];
    const liveStatus = row?.view_state === 1 || row?.perf_state === 1;
    const kill = row?.can_kill === 1;
    const state = azure
      ? 'VIEW DATABASE STATE (or VIEW DATABASE PERFORMANCE STATE)'
      : 'VIEW SERVER STATE (or VIEW SERVER PERFORMANCE STATE)';
    return {
      liveStatus,
      liveReason: liveStatus ? null : `this login lacks ${state}: live request state (waits, blocking, CPU) is not shown`,
      kill,
      killReason: kill ? null : `this login lacks ${azure ? 'KILL DATABASE CONNECTION' : 'ALTER ANY CONNECTION'}: KILL is not available`,
      azure,
      checked: true,
    };
  } catch (err) {
    const why = `could not check permissions: ${message(err)}`;
    return { liveStatus: false, liveReason: why, kill: false, killReason: why, azure: false, checked: false };
  }
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
    private readonly permissions: () => Promise<Pick<Capabilities, 'liveStatus' | 'liveReason'> & { checked: boolean }>,
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
        let status: LiveStatus;
        let rows: RunningView[] | null = null;
        if (caps.checked && !caps.liveStatus) status = { available: false, reason: caps.liveReason };
        else {
          try {
            rows = await this.queries.live();
            // the permissions could not be checked, yet the query runs: show what it sees, and say so
            status = { available: true, reason: caps.checked ? null : caps.liveReason };
          } catch (err) {
            status = { available: false, reason: `live request state could not be read: ${message(err)}` };
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
      this.judged = { status: { available: false, reason: `live request state could not be read: ${message(err)}` }, at: this.now() };
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

export type KillCheck = { ok: true; target: KillTarget } | { ok: false; result: 'not_found' | 'conflict'; reason: string | null };

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

/** The extras of one store: procedures, live state, permissions for KILL (asked once), the operator's KILL. */
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
    const caps = await this.capabilities();
    const check = await killTarget(await this.shared.pool(), token);
    if (!check.ok) {
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
    await killIfStillTagged(await this.killPool(), t);
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
