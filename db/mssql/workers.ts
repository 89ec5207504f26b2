// Workers on SQL Server: each has its own connection (session.ts) for its claims and its sql and
// procedure tasks, so ExecutionLog.session is the SPID that ran the attempt. Registering opens it
// and records the worker on it; a replaced connection's new session (SPID + login time) is recorded
// on the worker row, on that connection too — so a worker's start and its claims never wait for
// the shared pool. Heartbeats run on a connection of their own (one per store): a lease renewal
// never queues behind producers, operators, finishes or the dashboard's reads of this process.
import {
  workerQueuesJson,
  type HeartbeatInput,
  type HeartbeatResult,
  type WorkerRegistration,
  type WorkerSession,
} from '../../lib/engine/types';
import { call, sql, type ConnectionPool, type Shared } from './connection';
import { codeMissing, retrying } from './errors';
import { id, intMs, type Id } from './rows';
import { WorkerConnection, type SessionInfo } from './session';
import { HOT, HOT_BARE_NAMES, hotName } from './sql/hot';
import { DEREGISTER_WORKER, REGISTER_HANDLERS, REGISTER_WORKER, UPDATE_WORKER_SESSION } from './sql/workers';
import { toConfig } from './url';

const big = (v: unknown) => JSON.stringify(v);

/**
 * A heartbeat gives up after a third of the lease (within 1–10 s), and one not acknowledged then is
 * dropped after CANCEL_TIMEOUT_MS (connection.ts): on a connection the server left without a FIN, the
 * pool notices within a third of its lease and a second, reconnects, and a later heartbeat still renews in
 * time. (Half the lease, as before, plus tedious's 5 s cancel wait, let a 10 s lease lapse.) Claims and
 * finishes are bounded by the store's statement timeout instead (Shared.statementTimeoutMs): they may
 * rightly wait behind locks for longer than a lease (a claim counts its lease from when it takes the row).
 */
export function heartbeatTimeoutMs(leaseMs: number): number {
  return Math.max(1000, Math.min(10_000, Math.floor(leaseMs / 3)));
}

/** The worker connections of this process, by worker id, and the connection their heartbeats share. */
export class Workers {
  private readonly conns = new Map<string, WorkerConnection>();
  private beats: Promise<ConnectionPool> | null = null;

  constructor(private readonly shared: Shared) {}

  /** A worker's own connection (opened on first use). */
  connection(workerId: string): WorkerConnection {
    let conn = this.conns.get(workerId);
    if (!conn) {
      const c: WorkerConnection = new WorkerConnection(this.shared, workerId, (info, prev, expected) =>
        this.sessionChanged(c, info, prev, expected),
      );
      this.conns.set(workerId, c);
      conn = c;
    }
    return conn;
  }

  /** A worker's connection was replaced: record the new session (SPID + login time), on that connection. */
  private async sessionChanged(conn: WorkerConnection, info: SessionInfo, previous: SessionInfo | null, expected: boolean): Promise<void> {
    if (!previous) return;
    if (!expected) this.shared.log(`worker ${conn.workerId}: reconnected, now session ${info.session} (was ${previous.session})`);
    await retrying(() =>
      conn.query(UPDATE_WORKER_SESSION, [
        ['worker_id', sql.NVarChar(256), conn.workerId],
        ['session', sql.Int, info.session],
        ['login_time', sql.DateTime, info.loginTime],
      ]),
    );
  }

  /** Open the worker's connection and record the worker on it: one login, two round trips. */
  async register(reg: WorkerRegistration): Promise<WorkerSession> {
    const old = this.conns.get(reg.workerId);
    if (old) {
      this.conns.delete(reg.workerId);
      await old.close();
    }
    const conn = this.connection(reg.workerId);
    const info = await conn.open();
    await retrying(() =>
      conn.query(REGISTER_WORKER, [
        ['code', sql.NVarChar(sql.MAX), big(HOT_BARE_NAMES)],
        ['worker_id', sql.NVarChar(256), reg.workerId],
        ['host', sql.NVarChar(256), reg.host.slice(0, 256)],
        ['pid', sql.Int, reg.pid],
        ['role', sql.NVarChar(32), reg.role.slice(0, 32)],
        ['queues', sql.NVarChar(sql.MAX), workerQueuesJson(reg.queues)],
        ['session', sql.Int, info.session],
        ['login_time', sql.DateTime, info.loginTime],
      ]),
    ).catch((err: unknown) => {
      throw codeMissing(err) ?? err;
    });
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

  /** The heartbeats' own connection: one, kept open (the pool beats every second or so). */
  private beatPool(): Promise<ConnectionPool> {
    this.beats ??= (async () => {
      const pool = this.shared.openPool(
        toConfig(this.shared.target, { appName: 'readpast heartbeat', pool: { min: 1, max: 1 } }),
        'heartbeat connection',
      );
      try {
        return await pool.connect();
      } catch (err) {
        this.beats = null;
        await pool.close().catch(() => {});
        throw err;
      }
    })();
    return this.beats;
  }

  async heartbeat(input: HeartbeatInput): Promise<HeartbeatResult> {
    const pool = await this.beatPool();
    const r = await retrying(() =>
      call<{ id: Id; cancel_requested: boolean }>(
        pool,
        hotName(HOT.heartbeat),
        [
          ['workers', sql.NVarChar(sql.MAX), big(input.workerIds)],
          ['running', sql.NVarChar(sql.MAX), big(input.running)],
          ['lease_ms', sql.Int, intMs(input.leaseMs)],
        ],
        heartbeatTimeoutMs(input.leaseMs),
      ),
    );
    const owned = r.recordset.map((x) => id(x.id));
    const cancelRequested = r.recordset.filter((x) => x.cancel_requested).map((x) => id(x.id));
    const server = (r.recordsets as unknown as { server_ms: number }[][])[1]?.[0]?.server_ms;
    return server === undefined ? { owned, cancelRequested } : { owned, cancelRequested, serverMs: Number(server) };
  }

  async close(): Promise<void> {
    const conns = [...this.conns.values()];
    this.conns.clear();
    const beats = this.beats;
    this.beats = null;
    await Promise.all([...conns.map((c) => c.close()), beats?.then((p) => p.close()).catch(() => {})]);
  }
}
