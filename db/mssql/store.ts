// The SQL Server Store, composed from one module per concern. A shared pool (connection.ts) serves
// producers, operators, finishes and reads; every worker has its own connection (session.ts) for
// its claims and its sql and procedure tasks, so ExecutionLog.session is the SPID that ran the
// attempt; heartbeats have a connection of their own (workers.ts). Every pool is made by one Driver,
// which counts logins and round trips (driverCounts). All T-SQL is in sql/.
import type {
  CommandPort,
  MaintenancePort,
  ReadModel,
  SqlServerExtras,
  Store,
  StoreCapabilities,
  WorkerPort,
} from '../../lib/engine/ports';
import type { AttemptResult, DoctorCheck, MigrateReport, TaskKind } from '../../lib/engine/types';
import * as alerts from './alerts';
import { evaluateAlerts } from '../../lib/engine/alerts';
import * as attemptLogs from './attempt-logs';
import * as audit from './audit';
import { audited } from './audit';
import * as poolSettings from './pool-settings';
import * as batches from './batches';
import * as bulk from './bulk';
import { Claims } from './claim';
import { Shared, type AccessTokenProvider, type DriverCounts, type Logger, type PoolFactory } from './connection';
import { diagnoseMssql } from './doctor';
import * as enqueue from './enqueue';
import * as failures from './failures';
import * as throttle from './throttle';
import * as flows from './flows';
import * as durable from './durable';
import * as history from './history';
import { Live } from './live';
import * as maintenance from './maintenance';
import { CODE_VERSION, migrate } from './migrations';
import * as operators from './operators';
import { ProcedureCatalog } from './procs';
import * as queues from './queues';
import * as reads from './reads';
import * as run from './run';
import { withWaitSampling } from './trace-waits';
import * as schedules from './schedules';
import { finish } from './settle';
import { withPayloadPreview } from './running-preview';
import { enqueueOn, externalTransaction, transaction } from './transaction';
import { ConnectionStringError, describeTarget, parseMssqlUrl, toConfig, type MssqlTarget } from './url';
import { setAllowSql } from './settings';
import { WakePoller } from './wake';
import { bindPort, slicesOf } from '../shared/bind';
import { Workers } from './workers';

/** The concern modules whose slices make the ports (db/shared/bind.ts). */
const concerns = [
  attemptLogs,
  maintenance,
  schedules,
  operators,
  queues,
  batches,
  audit,
  alerts,
  bulk,
  poolSettings,
  reads,
  history,
  failures,
  throttle,
  flows,
  durable,
];

export interface MssqlStoreOptions {
  log?: Logger;
  /** false: do not create or upgrade the schema on open (a command against a missing schema then says to run `readpast migrate`) */
  migrate?: boolean;
  /**
   * With `migrate: false`: refuse a schema of another version than this code's on the first statement
   * (default true; false for `readpast doctor`, which reports the schema's version as a check).
   */
  checkSchema?: boolean;
  /** makes the driver's pools (tests watch or stand in for the driver with it) */
  poolFactory?: PoolFactory;
  /** how long one wake-up long poll waits on the server, ms (wake.ts; default 1000); 0: no long poll */
  wakeMs?: number;
  /**
   * A Microsoft Entra ID access token, asked before each new connection: with `Authentication=Active
   * Directory Access Token`, or with no Authentication in the URL (then it is that mode).
   */
  accessToken?: AccessTokenProvider;
  /** how long claims, finishes and the store's statements on a worker's session may take, ms (default 15,000) */
  statementTimeoutMs?: number;
  /** how long `migrate` keeps a hot procedure no registered worker uses, ms (code-objects.ts; default 7 days) */
  codeRetentionMs?: number;
}

export class MssqlStore implements Store {
  readonly dialect = 'mssql' as const;
  readonly kinds: readonly TaskKind[] = ['handler', 'sql', 'procedure'];
  /** a claim takes one round trip per slot anyway: no claiming ahead by default */
  readonly capabilities: StoreCapabilities = { prefetch: 0 };
  readonly description: string;
  readonly worker: WorkerPort;
  readonly maintenance: MaintenancePort;
  readonly commands: CommandPort;
  readonly reads: ReadModel;
  readonly sqlServer: SqlServerExtras;
  private readonly shared: Shared;
  private readonly workers: Workers;
  private readonly live: Live;
  private readonly wakes: WakePoller;
  private readonly codeRetentionMs: number | undefined;

  constructor(
    private readonly target: MssqlTarget,
    opts: MssqlStoreOptions = {},
  ) {
    // the sign-in with the token callback, for every pool (the migration's included)
    this.target = target = withAccessToken(target, opts.accessToken);
    this.codeRetentionMs = opts.codeRetentionMs;
    this.description = describeTarget(target);
    const log = opts.log ?? ((m, e) => console.warn(`readpast (SQL Server): ${m}${e ? `: ${(e as Error).message ?? e}` : ''}`));
    // a store that does not migrate checks the schema's version on its first statement (connection.ts)
    const shared = (this.shared = new Shared(
      target,
      log,
      opts.poolFactory,
      opts.accessToken,
      opts.migrate === false && opts.checkSchema !== false ? CODE_VERSION : null,
      opts.statementTimeoutMs,
    ));
    const procs = new ProcedureCatalog(() => shared.pool());
    const workers = (this.workers = new Workers(shared));
    const claims = new Claims(workers, shared, log);
    const settle = (results: AttemptResult[]) => finish(shared, results);
    const live = (this.live = new Live(shared, procs, settle));
    const wakes = (this.wakes = new WakePoller(shared, log, { waitMs: opts.wakeMs }));

    this.worker = {
      registerWorker: (reg) => workers.register(reg),
      deregisterWorker: (workerId) => workers.deregister(workerId),
      registerHandlers: (names) => workers.registerHandlers(names),
      heartbeat: (input) => workers.heartbeat(input),
      claim: (slots, opts) => claims.claim(slots, opts),
      finish: settle,
      appendAttemptOutput: (batch) => attemptLogs.appendAttemptOutput(shared, batch),
      nextRateOpening: (queues) => throttle.nextRateOpening(shared, queues),
      // a traced attempt's database span learns its session and what it waited for (trace-waits.ts)
      runSql: (attempt, text, signal) => withWaitSampling(shared, attempt, () => run.runSql(workers, attempt, text, signal)),
      runProcedure: (attempt, name, params, signal) =>
        withWaitSampling(shared, attempt, () => run.runProcedure(workers, procs, attempt, name, params, signal)),
      // durable handlers' steps; a transactional step on the worker's own session (durable.ts)
      ...durable.workerMethods(shared, procs, workers),
      // in-process wake-ups, and the long poll that sees other processes' tasks (wake.ts)
      onWake: (listener) => wakes.subscribe(listener),
    };

    // each port but the worker's: its concern modules' slices bound to `shared` (db/shared/bind.ts), and
    // what is the store's own
    this.maintenance = bindPort<MaintenancePort, Shared>(shared, {
      ...slicesOf('maintenanceSlice', concerns),
      evaluateAlerts: (_, now) => evaluateAlerts(this, now),
    });
    this.commands = bindPort<CommandPort, Shared>(shared, {
      ...slicesOf('commandSlice', concerns),
      enqueue: async (_, input, opts, a) => {
        const t = externalTransaction(opts);
        if (!t) return audited(shared, a, (s) => enqueue.enqueue(s, procs, input));
        const r = (await enqueueOn(shared, procs, t, [input], () => ''))[0]!;
        await audit.auditOn(shared, t, a, r);
        return r;
      },
      enqueueMany: async (_, inputs, opts, a) => {
        const t = externalTransaction(opts);
        if (!t) return audited(shared, a, (s) => enqueue.enqueueMany(s, procs, inputs));
        const r = await enqueueOn(shared, procs, t, inputs, (i) => `tasks.${i}`);
        await audit.auditOn(shared, t, a, r);
        return r;
      },
      createFlow: async (_, input, opts, a) => {
        const t = externalTransaction(opts);
        if (!t) return audited(shared, a, (s) => flows.createFlowOn(s, procs, input));
        const r = await flows.createFlowOn(shared, procs, input, t);
        await audit.auditOn(shared, t, a, r);
        t.once('commit', () => shared.wake());
        return r;
      },
      transaction: (_, fn, opts) => transaction(shared, procs, fn, opts),
    });
    this.reads = bindPort<ReadModel, Shared>(shared, {
      ...slicesOf('readSlice', concerns),
      listRunning: () => attemptLogs.withProgress(shared, withPayloadPreview(shared, live.running())),
    });

    this.sqlServer = {
      describeProcedure: (name) => live.describeProcedure(name),
      liveStatus: () => live.liveStatus(),
      killSession: (token) => live.killSession(token),
      setAllowSql: (allow, changedBy, a) => audited(shared, a, (s) => setAllowSql(s, allow, changedBy)),
    };
  }

  /** Logins and round trips this store's pools have made so far (the migration's own connection aside). */
  get driverCounts(): Readonly<DriverCounts> {
    return { ...this.shared.driver.counts };
  }

  async migrate(): Promise<MigrateReport> {
    const report = await migrate(
      toConfig(this.target, { appName: 'readpast migrate' }),
      undefined,
      (cfg) => this.shared.openPool(cfg, 'migration connection'),
      { codeRetentionMs: this.codeRetentionMs, log: this.shared.log },
    );
    if (report.dropped.length) this.shared.log(`migrate: dropped ${report.dropped.join(', ')} (no worker used them for the retention)`);
    return report;
  }

  /** `readpast doctor`: asks the server on the shared pool, changes nothing (doctor.ts, doctor-judge.ts). */
  diagnose(): Promise<DoctorCheck[]> {
    return diagnoseMssql(this.shared);
  }

  async close(): Promise<void> {
    await this.wakes.close();
    await this.workers.close();
    await this.live.close();
    await this.shared.close();
  }
}

/**
 * The sign-in with the library's token callback: it makes a URL without Authentication an access-token
 * one; Active Directory Access Token without it, or it with another mode, is refused here, at open.
 */
export function withAccessToken(target: MssqlTarget, accessToken: unknown): MssqlTarget {
  if (accessToken !== undefined && typeof accessToken !== 'function') {
    throw new ConnectionStringError('accessToken must be a function that returns a promise of a Microsoft Entra ID access token');
  }
  if (accessToken === undefined) {
    if (target.authentication === 'entra-access-token') {
      throw new ConnectionStringError(
        'SQL Server: Authentication=Active Directory Access Token needs a token callback: openReadpast({ accessToken: () => … }). ' +
          'The command line and the dashboard cannot pass one: use Active Directory Default or Managed Identity there',
      );
    }
    return target;
  }
  if (target.authentication === 'entra-access-token') return target;
  if (target.authentication !== 'sql' || target.password !== null) {
    throw new ConnectionStringError(
      'SQL Server: accessToken signs in with Microsoft Entra ID; the connection string must not name another sign-in ' +
        '(Authentication, Password, DOMAIN\\user)',
    );
  }
  return { ...target, authentication: 'entra-access-token', user: null };
}

/** Parse the URL and migrate (unless `migrate: false`); connections are opened on first use. */
export async function openMssqlStore(url: string, opts: MssqlStoreOptions = {}): Promise<MssqlStore> {
  const store = new MssqlStore(parseMssqlUrl(url), opts);
  if (opts.migrate !== false) {
    try {
      await store.migrate();
    } catch (err) {
      await store.close().catch(() => {});
      throw err;
    }
  }
  return store;
}
