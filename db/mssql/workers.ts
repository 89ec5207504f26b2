// Workers on SQL Server: each has its own connection (session.ts) for its claims and its sql and
// procedure tasks, so ExecutionLog.session is the SPID that ran the attempt. Registering opens it;
// a replaced connection's new session (SPID + login time) is recorded on the worker row.
import type { HeartbeatInput, HeartbeatResult, WorkerRegistration, WorkerSession } from '../../lib/engine/types';
import { sql, type Shared } from './connection';
import { id, intMs, type Id } from './rows';
import { WorkerConnection, type SessionInfo } from './session';
import { DEREGISTER_WORKER, HEARTBEAT, REGISTER_HANDLERS, REGISTER_WORKER, UPDATE_WORKER_SESSION } from './sql/workers';

const big = (v: unknown) => JSON.stringify(v);

/** The worker connections of this process, by worker id. */
export class Workers {
  private readonly conns = new Map<string, WorkerConnection>();

  constructor(private readonly shared: Shared) {}

  /** A worker's own connection (opened on first use). */
  connection(workerId: string): WorkerConnection {
    let conn = this.conns.get(workerId);
    if (!conn) {
      conn = new WorkerConnection(
        this.shared.target,
        workerId,
        (info, prev, expected) => this.sessionChanged(workerId, info, prev, expected),
        this.shared.log,
      );
      this.conns.set(workerId, conn);
    }
    return conn;
  }

  /** A worker's connection was replaced: record the new session (SPID + login time). */
  private async sessionChanged(workerId: string, info: SessionInfo, previous: SessionInfo | null, expected: boolean): Promise<void> {
    if (!previous) return;
    if (!expected) this.shared.log(`worker ${workerId}: reconnected, now session ${info.session} (was ${previous.session})`);
    await this.shared.write(UPDATE_WORKER_SESSION, [
      ['worker_id', sql.NVarChar(256), workerId],
      ['session', sql.Int, info.session],
      ['login_time', sql.DateTime, info.loginTime],
    ]);
  }

  async register(reg: WorkerRegistration): Promise<WorkerSession> {
    const old = this.conns.get(reg.workerId);
    if (old) {
      this.conns.delete(reg.workerId);
      await old.close();
    }
    const conn = this.connection(reg.workerId);
    const info = await conn.open();
    await this.shared.write(REGISTER_WORKER, [
      ['worker_id', sql.NVarChar(256), reg.workerId],
      ['host', sql.NVarChar(256), reg.host.slice(0, 256)],
      ['pid', sql.Int, reg.pid],
      ['role', sql.NVarChar(32), reg.role.slice(0, 32)],
      ['session', sql.Int, info.session],
      ['login_time', sql.DateTime, info.loginTime],
    ]);
    return { session: info.session, loginTime: info.loginTime };
  }

  async deregister(workerId: string): Promise<void> {
    await this.shared.write(DEREGISTER_WORKER, [['worker_id', sql.NVarChar(256), workerId]]);
    const conn = this.conns.get(workerId);
    this.conns.delete(workerId);
    if (conn) await conn.close();
  }

  async registerHandlers(names: string[]): Promise<void> {
    if (names.length) await this.shared.write(REGISTER_HANDLERS, [['names', sql.NVarChar(sql.MAX), big(names)]]);
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatResult> {
    const r = await this.shared.write<{ id: Id; cancel_requested: boolean }>(HEARTBEAT, [
      ['workers', sql.NVarChar(sql.MAX), big(input.workerIds)],
      ['running', sql.NVarChar(sql.MAX), big(input.running)],
      ['lease_ms', sql.Int, intMs(input.leaseMs)],
    ]);
    const owned = r.recordset.map((x) => id(x.id));
    const cancelRequested = r.recordset.filter((x) => x.cancel_requested).map((x) => id(x.id));
    return { owned, cancelRequested };
  }

  async close(): Promise<void> {
    const conns = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(conns.map((c) => c.close()));
  }
}
