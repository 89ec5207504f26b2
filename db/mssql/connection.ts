// Connecting to SQL Server. The mssql (tedious) driver, loaded the same way under Node ESM, tsx,
// vitest and Next.js (the package is CommonJS whose named exports Node cannot detect, so take its
// default export when there is one); every pool of a store made by one Driver (an 'error' listener
// on each, connections and round trips counted); and the store's shared pool, which serves
// producers, operators, finishes and reads. Every worker has its own connection besides
// (session.ts), and heartbeats have one of their own (workers.ts).
import * as ns from 'mssql';
import { retrying, SchemaMissingError, schemaMissing, schemaVersionMismatch, serverMessage } from './errors';
import { probeServer, UnsupportedServerError, unsupportedReason } from './server';
import { execText } from './sql/hot';
import { SCHEMA_GUARD } from './sql/migrations';
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
  Transaction,
  config as MssqlConfig,
} from 'mssql';

/** A typed parameter: name (without @), SQL type, value. */
export type Param = readonly [name: string, type: ns.ISqlType | (() => ns.ISqlType), value: unknown];

export type Logger = (message: string, err?: unknown) => void;

/**
 * A Microsoft Entra ID access token for `Authentication=Active Directory Access Token`, asked before each
 * new connection (a pool's connections outlive a token's hour): the library's `accessToken` option.
 */
export type AccessTokenProvider = () => Promise<string>;

/** What runs a statement: a pool, or one transaction open on it. */
export type Runner = ns.ConnectionPool | ns.Transaction;

/** A request with its own timeout (ms; 0 = none), which the driver supports but the typings omit. */
export function requestWithTimeout(pool: Runner, requestTimeout: number): ns.Request {
  const Ctor = sql.Request as unknown as new (p: Runner, o: { requestTimeout: number }) => ns.Request;
  return new Ctor(pool, { requestTimeout });
}

/**
 * The schema check of a store that does not migrate (one-shot commands): until a statement has passed it,
 * each statement on the pool carries SCHEMA_GUARD in front, so the check costs no round trip of its own.
 */
interface SchemaGuard {
  codeVersion: number;
  passed: boolean;
}
const schemaGuards = new WeakMap<ns.ConnectionPool, SchemaGuard>();

/**
 * Run a parameterised statement of ours (sp_executesql) on a pool. A statement that finds no
 * readpast table fails with "run readpast migrate" (commands that do not migrate first: lib/api/open.ts);
 * on a pool with a schema guard, the first one also refuses a schema of another version (SchemaVersionError).
 */
export async function query<T = Record<string, unknown>>(
  pool: Runner,
  text: string,
  params: readonly Param[] = [],
  requestTimeout?: number,
): Promise<ns.IResult<T>> {
  const req = requestTimeout === undefined ? pool.request() : requestWithTimeout(pool, requestTimeout);
  for (const [name, type, value] of params) req.input(name, type, value);
  // a statement inside a transaction is guarded by its pool's check (mssql's Transaction keeps its pool as `parent`)
  const owner = 'parent' in pool && pool.parent ? (pool.parent as ns.ConnectionPool) : (pool as ns.ConnectionPool);
  const guard = schemaGuards.get(owner);
  const guarded = guard !== undefined && !guard.passed;
  if (guarded) req.input('readpast_code_version', sql.Int, guard.codeVersion);
  try {
    const r = await req.query<T>(guarded ? SCHEMA_GUARD + text : text);
    if (guarded) guard.passed = true;
    return r;
  } catch (err) {
    throw (guard && schemaVersionMismatch(err, guard.codeVersion)) ?? schemaMissing(err) ?? err;
  }
}

/** An OUTPUT parameter of a procedure: name (without @) and SQL type; its value comes back in `output`. */
export type OutParam = readonly [name: string, type: ns.ISqlType | (() => ns.ISqlType)];

/**
 * Call an installed procedure of ours (one RPC: its name and typed parameters, no statement text) on a
 * pool or a transaction open on it (`requestTimeout`: its own, ms). A procedure or table that is not there
 * fails with "run readpast migrate". On a pool whose schema check has not passed yet (a store that does
 * not migrate) the first call goes as SCHEMA_GUARD then EXEC, in the same round trip, as query() does.
 */
export async function callOn<T = Record<string, unknown>>(
  runner: Runner,
  name: string,
  params: readonly Param[],
  outputs: readonly OutParam[] = [],
  requestTimeout?: number,
): Promise<ns.IProcedureResult<T>> {
  const req = requestTimeout === undefined ? runner.request() : requestWithTimeout(runner, requestTimeout);
  for (const [n, type, value] of params) req.input(n, type, value);
  for (const [n, type] of outputs) req.output(n, type);
  const owner = 'parent' in runner && runner.parent ? (runner.parent as ns.ConnectionPool) : (runner as ns.ConnectionPool);
  const guard = schemaGuards.get(owner);
  const guarded = guard !== undefined && !guard.passed;
  try {
    if (!guarded) return await req.execute<T>(name);
    req.input('readpast_code_version', sql.Int, guard.codeVersion);
    const text = execText(
      name,
      params.map(([n]) => n),
      outputs.map(([n]) => n),
    );
    const r = await req.query<T>(SCHEMA_GUARD + text);
    guard.passed = true;
    return r as unknown as ns.IProcedureResult<T>;
  } catch (err) {
    throw (guard && schemaVersionMismatch(err, guard.codeVersion)) ?? schemaMissing(err) ?? err;
  }
}

/** Call an installed procedure of ours on a pool (`requestTimeout`: its own, ms). */
export function call<T = Record<string, unknown>>(
  pool: ns.ConnectionPool,
  name: string,
  params: readonly Param[],
  requestTimeout?: number,
  outputs: readonly OutParam[] = [],
): Promise<ns.IProcedureResult<T>> {
  return callOn<T>(pool, name, params, outputs, requestTimeout);
}

// ---- pools ---------------------------------------------------------------------------------------

/** What a store's connections have cost so far: logins, and requests sent (each one round trip). */
export interface DriverCounts {
  connections: number;
  roundTrips: number;
}

/** Makes a driver pool from its config (tests pass their own to watch or stand in for the driver). */
export type PoolFactory = (config: ns.config) => ns.ConnectionPool;

/** What mssql's ConnectionPool does inside (lib/base/connection-pool.js, lib/tedious/connection-pool.js of mssql 12). */
interface PoolInternals {
  _poolCreate(): Promise<unknown>;
  _poolDestroy(connection: unknown): Promise<void>;
  pool?: unknown;
  connecting: boolean;
}

let reusingPool: (new (config: ns.config) => ns.ConnectionPool) | null = null;

/** tedious's connect timeout when the URL sets none */
const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
/** A login not answered after this long gets a second attempt beside it (see raceCreate). */
export const CONNECT_RACE_AFTER_MS = 1500;
/** at most this many attempts of one login at once */
const CONNECT_RACE_MAX = 8;

/**
 * One connection from `create`, first success wins. Each attempt is bounded by the driver's connect
 * timeout (15 s unless the URL sets one), and a worker's pool holds one connection, so an attempt the
 * network swallows — a server that accepts but does not answer while it starts, a failover's old
 * address — would keep that worker from claiming for the whole timeout after the server is back. So
 * an attempt still unanswered after CONNECT_RACE_AFTER_MS gets another beside it (and so on); a slow
 * login that does answer is never abandoned, extra connections that also succeed are closed. New
 * attempts start only within `windowMs` (the connect timeout) of the first, so the whole settles
 * within twice that. Fails when every attempt has failed (a refused connection fails at once, with no
 * second attempt).
 */
export function raceCreate<C>(
  create: () => Promise<C>,
  close: (c: C) => Promise<void>,
  afterMs = CONNECT_RACE_AFTER_MS,
  windowMs = DEFAULT_CONNECT_TIMEOUT_MS,
): Promise<C> {
  const until = Date.now() + windowMs;
  return new Promise<C>((resolve, reject) => {
    let done = false;
    let pending = 0;
    let timer: NodeJS.Timeout | null = null;
    const finish = () => {
      done = true;
      if (timer) clearTimeout(timer);
    };
    const attempt = () => {
      pending++;
      create().then(
        (c) => {
          pending--;
          if (done) void close(c).catch(() => {});
          else {
            finish();
            resolve(c);
          }
        },
        (err: unknown) => {
          pending--;
          if (!done && pending === 0) {
            finish();
            reject(err);
          }
        },
      );
    };
    const later = () => {
      if (Date.now() + afterMs >= until) return;
      timer = setTimeout(() => {
        if (done) return;
        if (pending < CONNECT_RACE_MAX) attempt();
        later();
      }, afterMs);
      timer.unref?.();
    };
    attempt();
    later();
  });
}

/**
 * mssql's `connect()` logs in once to check the configuration, closes that connection, and the pool
 * logs in again on its first request: two logins (each a TCP connect, TLS and LOGIN7 exchange plus
 * the driver's SET batch) before the first statement. This pool keeps the checking connection and
 * hands it to the pool's first request instead (validated like any idle connection, so a dead one is
 * replaced). Its logins race a second attempt when one goes unanswered (raceCreate). Where the
 * driver's internals are not as expected it is the driver's own pool.
 */
function reusingPoolClass(): new (config: ns.config) => ns.ConnectionPool {
  if (reusingPool) return reusingPool;
  const base = sql.ConnectionPool.prototype as unknown as Partial<PoolInternals>;
  if (typeof base._poolCreate !== 'function' || typeof base._poolDestroy !== 'function') return (reusingPool = sql.ConnectionPool);
  const create = base._poolCreate;
  const destroy = base._poolDestroy;
  class ReusingPool extends sql.ConnectionPool {
    private kept: unknown = null;

    _poolCreate(): Promise<unknown> {
      const kept = this.kept;
      this.kept = null;
      if (kept) return Promise.resolve(kept);
      const timeout = (this as unknown as { config: ns.config }).config.connectionTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS;
      return raceCreate(
        () => create.call(this),
        (c) => destroy.call(this, c),
        CONNECT_RACE_AFTER_MS,
        timeout,
      );
    }

    _poolDestroy(connection: unknown): Promise<void> {
      const self = this as unknown as PoolInternals;
      // the checking connection of connect(): closed before the pool exists
      if (!self.pool && self.connecting && !this.kept) {
        this.kept = connection;
        return Promise.resolve();
      }
      return destroy.call(this, connection);
    }

    override async close(): Promise<void> {
      const kept = this.kept;
      this.kept = null;
      if (kept) await destroy.call(this, kept).catch(() => {});
      await super.close();
    }
  }
  return (reusingPool = ReusingPool as unknown as new (config: ns.config) => ns.ConnectionPool);
}

/** The pool readpast uses unless told otherwise. */
export const defaultPoolFactory: PoolFactory = (config) => new (reusingPoolClass())(config);

/**
 * TCP keep-alive on every connection: probes start after this much silence (tedious sets 30 s); Node's
 * libuv then probes every second, 10 times (TCP_KEEPINTVL 1, TCP_KEEPCNT 10 on Linux), so an idle
 * connection whose server vanished without a FIN is dropped ~15 s later instead of ~40 s.
 */
export const KEEPALIVE_MS = 5000;

/**
 * After a request times out, the driver sends the server an attention and waits this long for it to be
 * acknowledged before it drops the connection (tedious's default: 5 s). A server that does not answer
 * within 1 s is taken for gone (a half-open connection never answers); the session then ends on the
 * server, which rolls back what it had open.
 */
export const CANCEL_TIMEOUT_MS = 1000;

/** The default of Shared.statementTimeoutMs: longer than a claim waits behind the longest caller transaction (20 s max; 10 s default). */
export const STATEMENT_TIMEOUT_MS = 15_000;

/** What the driver's pool and tedious connection expose that the Driver uses (mssql 12, tedious 19). */
interface DriverConnection {
  closed?: boolean;
  socket?: { destroyed: boolean; setKeepAlive(enable: boolean, ms: number): unknown } | null;
  once(event: 'connect', fn: (err?: unknown) => void): unknown;
}
interface PoolHooks {
  acquire: (...args: unknown[]) => unknown;
  release: (connection: unknown) => unknown;
  _poolValidate?: (connection: unknown) => unknown;
}

/**
 * Makes every pool of one store: each gets an 'error' listener (mssql emits 'error' on the pool for
 * every failed acquire and connection error; an EventEmitter with no listener throws it, which ends
 * the process), validates an idle connection by its socket (not with a SELECT 1 round trip), sets TCP
 * keep-alive and a short cancel timeout on each connection, and counts its logins and requests.
 *
 * A dead connection is not handed out again. A socket that a server left without a FIN (a failover, a
 * host gone, a network cut) looks healthy until a request on it times out; every other connection idle
 * since then is probably the same, and each would hold its next request for a timeout of its own — a
 * worker's claims one after the other, the shared pool's ten connections one by one. So when a
 * connection of any pool of the store comes back dead (its request failed on a closed socket, or timed
 * out and was not acknowledged), every connection of every pool of the store that has been idle since
 * before that moment is replaced on its next use, not validated by its socket alone.
 */
export class Driver {
  readonly counts: DriverCounts = { connections: 0, roundTrips: 0 };
  /** when a connection last came back dead (ms since 1970; 0: never) */
  private suspectSince = 0;
  private readonly releasedAt = new WeakMap<object, number>();

  constructor(
    private readonly factory: PoolFactory,
    private readonly log: Logger,
    private readonly accessToken?: AccessTokenProvider,
  ) {}

  pool(config: ns.config, label: string): ns.ConnectionPool {
    if (config.authentication?.type === 'azure-active-directory-access-token') return this.tokenPool(config, label);
    return this.build(config, label);
  }

  private build(config: ns.config, label: string): ns.ConnectionPool {
    const counts = this.counts;
    const before = config.beforeConnect;
    const pool = this.factory({
      validateConnection: 'socket',
      ...config,
      options: { cancelTimeout: CANCEL_TIMEOUT_MS, ...config.options },
      beforeConnect: (conn) => {
        counts.connections++;
        const c = conn as unknown as DriverConnection;
        c.once('connect', (err) => {
          if (!err) c.socket?.setKeepAlive(true, KEEPALIVE_MS);
        });
        before?.(conn);
      },
    });
    pool.on('error', (err: unknown) => this.log(`${label}: connection error`, err));
    const inner = pool as unknown as PoolHooks;
    // every request (query, batch, execute) acquires a connection once: one round trip each
    const acquire = inner.acquire.bind(pool);
    inner.acquire = (...args: unknown[]) => {
      counts.roundTrips++;
      return acquire(...args);
    };
    const release = inner.release.bind(pool);
    inner.release = (connection: unknown) => {
      const c = connection as DriverConnection | null;
      if (c && (c.closed || !c.socket || c.socket.destroyed)) this.suspectSince = Date.now();
      if (c) this.releasedAt.set(c, Date.now());
      return release(connection);
    };
    const validate = inner._poolValidate?.bind(pool);
    if (validate) {
      inner._poolValidate = (connection: unknown) => {
        const at = connection ? this.releasedAt.get(connection as object) : undefined;
        return at !== undefined && at <= this.suspectSince ? false : validate(connection);
      };
    }
    return pool;
  }

  /**
   * A pool that signs in with an access token from the callback, asked again before every new connection
   * (its `_poolCreate`, which mssql calls for each login: connect()'s and the pool's). The token lives in
   * the pool's config only; no message carries it.
   */
  private tokenPool(config: ns.config, label: string): ns.ConnectionPool {
    const provider = this.accessToken;
    if (!provider) {
      throw new Error(
        'SQL Server: Authentication=Active Directory Access Token needs a token callback (openReadpast({ accessToken: () => … }))',
      );
    }
    const options = { token: '' };
    const pool = this.build({ ...config, authentication: { type: 'azure-active-directory-access-token', options } }, label);
    const inner = pool as unknown as Partial<PoolInternals> & { config?: ns.config };
    if (typeof inner._poolCreate !== 'function') {
      throw new Error('SQL Server: this version of the mssql driver cannot take a new access token per connection');
    }
    const create = inner._poolCreate.bind(pool);
    inner._poolCreate = async () => {
      let token: unknown;
      try {
        token = await provider();
      } catch (err) {
        throw new Error(`SQL Server: the access token callback failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (typeof token !== 'string' || token === '') throw new Error('SQL Server: the access token callback returned no token');
      // mssql reads its config at each login (_config()): the current token goes into this one
      options.token = token;
      const auth = inner.config?.authentication as { options?: { token?: string } } | undefined;
      if (auth?.options) auth.options.token = token;
      return create();
    };
    return pool;
  }
}

/**
 * What every concern of the store shares: the pool (connected on first use, again after a failed
 * connect), its log, and the wake-up signal an in-process worker pool listens to.
 */
export class Shared {
  readonly driver: Driver;
  /**
   * How long the store's own statements on a worker's session (tags, clean-up), its claims and its
   * finishes may take before they are cancelled (MssqlStoreOptions.statementTimeoutMs): a bound on how
   * long a connection the server left without a FIN holds a worker's dispatcher.
   */
  statementTimeoutMs = STATEMENT_TIMEOUT_MS;
  private readonly sharedPool: ns.ConnectionPool;
  private connecting: Promise<ns.ConnectionPool> | null = null;
  private readonly listeners = new Set<() => void>();

  /**
   * `schemaVersion`: check the schema against this version on the first statement (a store that does not
   * migrate: see SchemaGuard); a store that migrates checks it while migrating.
   */
  constructor(
    readonly target: MssqlTarget,
    readonly log: Logger,
    factory: PoolFactory = defaultPoolFactory,
    accessToken?: AccessTokenProvider,
    schemaVersion: number | null = null,
    statementTimeoutMs?: number,
  ) {
    if (statementTimeoutMs !== undefined) this.statementTimeoutMs = statementTimeoutMs;
    this.driver = new Driver(factory, log, accessToken);
    const cfg = toConfig(target, { appName: 'readpast', pool: { min: 0, max: 10 } });
    cfg.options = { ...cfg.options, abortTransactionOnError: true };
    this.sharedPool = this.driver.pool(cfg, 'shared pool');
    if (schemaVersion !== null) schemaGuards.set(this.sharedPool, { codeVersion: schemaVersion, passed: false });
  }

  /** A pool of this store's own (counted, with an 'error' listener): worker sessions, heartbeats, KILL. */
  openPool(config: ns.config, label: string): ns.ConnectionPool {
    return this.driver.pool(config, label);
  }

  pool(): Promise<ns.ConnectionPool> {
    this.connecting ??= this.sharedPool.connect().catch((err: unknown) => {
      this.connecting = null;
      throw err;
    });
    return this.connecting;
  }

  /** Where a command's statements run: the shared pool (inside an audited command, its transaction: audit.ts). */
  runner(): Promise<Runner> {
    return this.pool();
  }

  /** A statement on the shared pool. */
  async query<T = Record<string, unknown>>(text: string, params: readonly Param[] = []): Promise<ns.IResult<T>> {
    const pool = await this.pool();
    return this.judged(() => query<T>(pool, text, params));
  }

  /** A writing batch on the shared pool, run again after a deadlock. */
  async write<T = Record<string, unknown>>(text: string, params: readonly Param[] = []): Promise<ns.IResult<T>> {
    const pool = await this.pool();
    return this.judged(() => retrying(() => query<T>(pool, text, params)));
  }

  /** null: not asked yet (or the question failed); else the server's refusal, or '' for a server readpast runs on */
  private refusal: string | null = null;

  /**
   * Run `fn`; on its first error from the server, ask once what server this is. A stand-in (Babelfish) or
   * a server readpast cannot run on fails every command with the refusal `migrate` and the worker give,
   * not with whatever its parser or catalog said first — a one-shot command never migrates, so this is
   * where it learns (and once refused, nothing more is sent). On SQL Server the error is the statement's own.
   */
  async judged<T>(fn: () => Promise<T>): Promise<T> {
    if (this.refusal) throw new UnsupportedServerError(this.refusal);
    try {
      return await fn();
    } catch (err) {
      if (this.refusal === null && (serverMessage(err).number !== null || err instanceof SchemaMissingError)) {
        try {
          this.refusal = unsupportedReason(await probeServer(await this.pool())) ?? '';
        } catch {
          // could not ask: the statement's own error says the most
        }
      }
      if (this.refusal) throw new UnsupportedServerError(this.refusal);
      throw err;
    }
  }

  /** A writing procedure of ours on the shared pool, run again after a deadlock. */
  async callWrite<T = Record<string, unknown>>(
    name: string,
    params: readonly Param[],
    outputs: readonly OutParam[] = [],
    requestTimeout?: number,
  ): Promise<ns.IProcedureResult<T>> {
    const pool = await this.pool();
    return this.judged(() => retrying(() => call<T>(pool, name, params, requestTimeout, outputs)));
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
