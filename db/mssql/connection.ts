// Connecting to SQL Server. The mssql (tedious) driver, loaded the same way under Node ESM, tsx,
// vitest and Next.js (the package is CommonJS whose named exports Node cannot detect, so take its
// default export when there is one); and the store's shared pool, which serves producers,
// operators, heartbeats and reads (every worker has its own connection besides: session.ts).
import * as ns from 'mssql';
import { retrying } from './errors';
import { toConfig, type MssqlTarget } from './url';

type Mssql = typeof ns;
const mod = ns as Mssql & { default?: Mssql };

export const sql: Mssql = mod.default ?? mod;

export type {
  ConnectionPool,
  IProcedureResult,
  IRecordSet,
  IResult,
  ISqlType,
  Request,
  config as MssqlConfig,
} from 'mssql';

/** A typed parameter: name (without @), SQL type, value. */
export type Param = readonly [name: string, type: ns.ISqlType | (() => ns.ISqlType), value: unknown];

export type Logger = (message: string, err?: unknown) => void;

/** A request with its own timeout (ms; 0 = none), which the driver supports but the typings omit. */
export function requestWithTimeout(pool: ns.ConnectionPool, requestTimeout: number): ns.Request {
  const Ctor = sql.Request as unknown as new (p: ns.ConnectionPool, o: { requestTimeout: number }) => ns.Request;
  return new Ctor(pool, { requestTimeout });
}

/** Run a parameterised statement (sp_executesql) on a pool. */
export async function query<T = Record<string, unknown>>(
  pool: ns.ConnectionPool,
  text: string,
  params: readonly Param[] = [],
  requestTimeout?: number,
): Promise<ns.IResult<T>> {
  const req = requestTimeout === undefined ? pool.request() : requestWithTimeout(pool, requestTimeout);
  for (const [name, type, value] of params) req.input(name, type, value);
  return req.query<T>(text);
}

/**
 * What every concern of the store shares: the pool (connected on first use, again after a failed
 * connect), its log, and the wake-up signal an in-process worker pool listens to.
 */
export class Shared {
  private readonly sharedPool: ns.ConnectionPool;
  private connecting: Promise<ns.ConnectionPool> | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly target: MssqlTarget,
    readonly log: Logger,
  ) {
    const cfg = toConfig(target, { appName: 'readpast', pool: { min: 0, max: 10 } });
    cfg.validateConnection = 'socket';
    cfg.options = { ...cfg.options, abortTransactionOnError: true };
    this.sharedPool = new sql.ConnectionPool(cfg);
    this.sharedPool.on('error', (err: unknown) => this.log('connection error', err));
  }

  pool(): Promise<ns.ConnectionPool> {
    this.connecting ??= this.sharedPool.connect().catch((err: unknown) => {
      this.connecting = null;
      throw err;
    });
    return this.connecting;
  }

  /** A statement on the shared pool. */
  async query<T = Record<string, unknown>>(text: string, params: readonly Param[] = []): Promise<ns.IResult<T>> {
    return query<T>(await this.pool(), text, params);
  }

  /** A writing batch on the shared pool, run again after a deadlock. */
  write<T = Record<string, unknown>>(text: string, params: readonly Param[] = []): Promise<ns.IResult<T>> {
    return retrying(() => this.query<T>(text, params));
  }

  onWake(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Something may have become claimable. */
  wake(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        /* a listener's failure is its own */
      }
    }
  }

  async close(): Promise<void> {
    this.listeners.clear();
    if (this.connecting) await this.sharedPool.close().catch(() => {});
    this.connecting = null;
  }
}
