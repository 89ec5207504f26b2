// The SQL Server extras: the procedure catalog's view of a procedure, whether this login may see
// the server's own state of running tasks (sys.dm_exec_sessions / requests, joined to
// ExecutionStatus in reads.ts), and an operator's KILL of the session running a task. Permissions
// are detected once per store and degrade cleanly.
import { ConflictError } from '../../lib/engine/errors';
import type { KillResult, SqlServerExtras } from '../../lib/engine/ports';
import type { AttemptResult, LiveStatus, ProcedureParameter } from '../../lib/engine/types';
import { query, sql, type ConnectionPool, type Shared } from './connection';
import type { ProcedureCatalog } from './procs';
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

/** Ask the server once what this login may see and do. Never throws: a failed check means "no". */
export async function detectCapabilities(pool: ConnectionPool): Promise<Capabilities> {
  try {
    const edition = (await query<{ edition: number | null }>(pool, S.ENGINE_EDITION)).recordset[0]?.edition ?? null;
    const azure = edition === 5;
    const row = (
      await query<{ view_state: number | null; can_kill: number | null }>(pool, azure ? S.PERMISSIONS_AZURE : S.PERMISSIONS_SERVER)
    ).recordset[0];
    const liveStatus = row?.view_state === 1;
    const kill = row?.can_kill === 1;
    return {
      liveStatus,
      liveReason: liveStatus
        ? null
        : `this login lacks ${azure ? 'VIEW DATABASE STATE' : 'VIEW SERVER STATE'}: live request state (waits, blocking, CPU) is not shown`,
      kill,
      killReason: kill ? null : `this login lacks ${azure ? 'KILL DATABASE CONNECTION' : 'ALTER ANY CONNECTION'}: KILL is not available`,
      azure,
    };
  } catch (err) {
    const why = `could not check permissions: ${(err as Error).message ?? String(err)}`;
    return { liveStatus: false, liveReason: why, kill: false, killReason: why, azure: false };
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

/** The extras of one store: procedures, permissions (asked once), the operator's KILL. */
export class Live implements SqlServerExtras {
  private caps: Promise<Capabilities> | null = null;
  private killing: Promise<ConnectionPool> | null = null;

  constructor(
    private readonly shared: Shared,
    private readonly procs: ProcedureCatalog,
    private readonly finish: (results: AttemptResult[]) => Promise<boolean[]>,
  ) {}

  /** Always asks the catalog afresh (the cache serves enqueue). */
  async describeProcedure(name: string): Promise<ProcedureParameter[] | null> {
    return (await this.procs.describe(name, true))?.params ?? null;
  }

  async liveStatus(): Promise<LiveStatus> {
    const c = await this.capabilities();
    return { available: c.liveStatus, reason: c.liveReason };
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
    this.killing ??= new sql.ConnectionPool(toConfig(this.shared.target, { appName: 'readpast kill', pool: { min: 0, max: 1 } }))
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
