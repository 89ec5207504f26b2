// The one front door: validated commands and the read model's JSON views over a store's ports. The
// HTTP API, server actions, the CLI (`--json` included) and library users all go through here; nothing
// outside lib/engine and lib/api touches a store.
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import { HandlerRegistry, defaultRegistry } from '../engine/handlers';
import { MAX_BULK } from '../engine/limits';
import { silentLogger, type Logger } from '../engine/logger';
import { Pool, type PoolOptions } from '../engine/pool';
import type { CancelResult, Dialect, ReadModel, Store } from '../engine/ports';
import type { AttemptFilter, BatchStatus, EnqueueResult, FailureFilter, LiveStatus, TaskFilter, TaskKind } from '../engine/types';
import {
  batchId as batchIdSchema,
  batchRequest,
  parseWith,
  queueName,
  queuePatch,
  token as tokenSchema,
  validateEnqueue,
  type EnqueueRequest,
} from '../engine/validation';
import {
  attemptJson,
  batchJson,
  doctorJson,
  failureGroupJson,
  metricsJson,
  queueChangeJson,
  queueJson,
  runningJson,
  statsJson,
  statusJson,
  taskJson,
  tokenJson,
  workerJson,
  type BatchJson,
  type DoctorJson,
  type HandlersJson,
  type StatusJson,
} from './present';
import { Audit } from './audit';
import { killTaskSession, procedureParameters } from './procedures';
import { Schedules } from './schedules';
import { withTransaction, type ReadpastTransaction, type TransactionOptions } from './transaction';
import { waitBatch, type WaitOptions, type WaitResult } from './wait';

export interface ReadpastOptions {
  registry?: HandlerRegistry;
  logger?: Logger;
}

export interface EnqueueOptions {
  caller?: string | null;
  /** false refuses `sql` tasks (the dashboard without READPAST_ALLOW_SQL=1) */
  allowSql?: boolean;
  /** SQL Server: an mssql `Transaction` the caller opened (begun); the task commits with it. Refused on SQLite. */
  transaction?: unknown;
}

export { MAX_BULK };

export const MAX_CHANGES_LISTED = 500;
export const DEFAULT_CHANGES_LISTED = 200;

/** dead tasks listed beside the failure groups */
export const MAX_DEAD_LISTED = 200;

export class Readpast {
  readonly registry: HandlerRegistry;
  readonly logger: Logger;
  /** the typed read model (Dates, not JSON) for library users and tests; the JSON views below are built from it */
  readonly reads: ReadModel;
  private readonly scheduling: Schedules;
  /** records every mutation of the front door in the AuditLog (who and from where: audit.ts asActor) */
  readonly audit: Audit;

  constructor(
    private readonly store: Store,
    opts: ReadpastOptions = {},
  ) {
    this.registry = opts.registry ?? defaultRegistry();
    this.logger = opts.logger ?? silentLogger;
    this.reads = store.reads;
    this.audit = new Audit(store, this.logger);
    this.scheduling = new Schedules(store, (opts) => this.context(opts));
  }

  get dialect(): Dialect {
    return this.store.dialect;
  }
  get kinds(): readonly TaskKind[] {
    return this.store.kinds;
  }
  /** the database, printable (no secrets) */
  get description(): string {
    return this.store.description;
  }

  /** create or upgrade the schema (idempotent) */
  migrate(): Promise<void> {
    return this.store.migrate();
  }

  /**
   * SQL Server: whether T-SQL callers (readpast.ExecAsync) may enqueue sql tasks — the database's
   * allow_sql setting, off until set here (`readpast migrate --allow-sql on`). Refused on SQLite.
   */
  async setAllowSql(allow: boolean, changedBy: string): Promise<void> {
    if (!this.store.sqlServer) throw new ValidationError('allowSql', 'a setting of SQL Server databases (readpast.Settings)');
    await this.store.sqlServer.setAllowSql(allow, changedBy);
  }

  /** `readpast doctor`: what will work on this database, each check with its remedy; changes nothing */
  async doctor(): Promise<DoctorJson> {
    return doctorJson(this.store.dialect, this.store.description, await this.store.diagnose());
  }

  private async context(opts: EnqueueOptions) {
    let remote: Set<string> | null = null;
    return {
      kinds: this.store.kinds,
      caller: opts.caller ?? null,
      allowSql: opts.allowSql,
      knowsHandler: (name: string): boolean | Promise<boolean> => {
        if (this.registry.has(name)) return true;
        if (remote) return remote.has(name);
        return this.store.reads.knownHandlers().then((names) => (remote = new Set(names)).has(name));
      },
    };
  }

  // ---- commands: tasks ------------------------------------------------------------------------

  async enqueue(raw: EnqueueRequest | unknown, opts: EnqueueOptions = {}): Promise<EnqueueResult> {
    const input = await validateEnqueue(raw, await this.context(opts));
    return this.store.commands.enqueue(input, { transaction: opts.transaction });
  }

  async enqueueMany(raws: unknown[], opts: EnqueueOptions = {}): Promise<EnqueueResult[]> {
    if (!Array.isArray(raws)) throw new ValidationError('tasks', 'must be an array');
    if (raws.length > MAX_BULK) throw new ValidationError('tasks', `at most ${MAX_BULK} per call`);
    const ctx = await this.context(opts);
    const inputs = [];
    for (let i = 0; i < raws.length; i++) inputs.push(await validateEnqueue(raws[i], ctx, `tasks.${i}`));
    return this.store.commands.enqueueMany(inputs, { transaction: opts.transaction });
  }

  /** The callback's statements and tasks commit together, or roll back when it throws (rethrown). lib/api/transaction.ts */
  withTransaction<T>(fn: (tx: ReadpastTransaction<EnqueueOptions>) => Promise<T>, opts?: TransactionOptions): Promise<T> {
    return withTransaction(this.store, async (raw, o: EnqueueOptions, path) => validateEnqueue(raw, await this.context(o), path), fn, opts);
  }

  private checkToken(token: unknown): string {
    const r = tokenSchema.safeParse(token);
    if (!r.success) throw new ValidationError('token', 'not a task token (uuid)');
    return r.data.toLowerCase();
  }

  async cancel(token: string): Promise<Exclude<CancelResult, 'not_found' | 'conflict'>> {
    const r = await this.store.commands.cancel(this.checkToken(token));
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('task is already finished; only pending or running tasks can be cancelled');
    return r;
  }

  async retry(token: string): Promise<'retried'> {
    const r = await this.store.commands.retry(this.checkToken(token));
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('only dead or cancelled tasks can be retried');
    if (r === 'batch_aborted') {
      throw new ConflictError('the batch was aborted: a task of an earlier stage failed, so this stage will not run');
    }
    return r;
  }

  async deleteTask(token: string): Promise<'deleted'> {
    const r = await this.store.commands.deleteTask(this.checkToken(token));
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('only finished tasks can be deleted');
    return r;
  }

  /** retry every dead task matching the (validated) filter; how many */
  retryFailed(filter: FailureFilter): Promise<number> {
    return this.store.commands.retryFailed(filter);
  }

  /** delete every dead task matching the (validated) filter; how many */
  deleteFailed(filter: FailureFilter): Promise<number> {
    return this.store.commands.deleteFailed(filter);
  }

  /** KILL the SQL Server session running a sql or procedure task (needs ALTER ANY CONNECTION) */
  killSession(token: unknown): Promise<{ status: 'killed' }> {
    return killTaskSession(this.store, token);
  }

  // ---- reads: tasks, attempts, workers --------------------------------------------------------

  async status(token: string): Promise<StatusJson> {
    const t = await this.store.reads.getTask(this.checkToken(token));
    if (!t) throw new NotFoundError(`no task with token ${token}`);
    return statusJson(t);
  }

  async stats() {
    // one after the other: at once, a fresh connection pool (`readpast stats`) logs in twice
    const queues = await this.store.reads.countsByQueue();
    const workers = await this.store.reads.listWorkers();
    return statsJson(queues, workers);
  }

  /** tasks newest first, keyset-paginated */
  async tasks(filter: TaskFilter) {
    const page = await this.store.reads.listTasks(filter);
    return { items: page.items.map(taskJson), nextCursor: page.nextCursor };
  }

  /** ExecutionLog: every attempt, newest first, keyset-paginated */
  async attempts(filter: AttemptFilter) {
    const page = await this.store.reads.listAttempts(filter);
    return { items: page.items.map(attemptJson), nextCursor: page.nextCursor };
  }

  /**
   * ExecutionStatus: the attempts running now; on SQL Server with the server's request state where it
   * can be read, and `liveStatus` saying whether it could (and why not) as of this very read.
   */
  async running() {
    // the list first: a live read that fails inside it is what the status then reports
    const items = (await this.store.reads.listRunning()).map(runningJson);
    return { items, liveStatus: await this.liveStatus() };
  }

  /** one point per second over [since, until] from the kept aggregate */
  async metrics(since: Date, until = new Date()) {
    return { points: metricsJson(await this.store.reads.metrics(since), since, until) };
  }

  /** Failed & poison: recent failures grouped by message, and the newest dead tasks. */
  async failures(filter: FailureFilter) {
    const [groups, dead] = await Promise.all([
      this.store.reads.failureGroups(filter),
      this.store.reads.listTasks({ status: 'dead', queue: filter.queue, q: filter.q ?? filter.message, limit: MAX_DEAD_LISTED }),
    ]);
    return { groups: groups.map(failureGroupJson), dead: dead.items.map(taskJson) };
  }

  /** every registered worker, and whether live session state (SQL Server DMVs) is visible */
  async workers() {
    const now = Date.now();
    const [workers, liveStatus] = await Promise.all([this.store.reads.listWorkers(), this.liveStatus()]);
    return { workers: workers.map((w) => workerJson(w, now)), liveStatus };
  }

  /** null where the database has no live session state (SQLite) */
  liveStatus(): Promise<LiveStatus | null> {
    return this.store.sqlServer ? this.store.sqlServer.liveStatus() : Promise.resolve(null);
  }

  /** handler names of this process and of every worker process; the kinds and dialect of the database */
  async handlers(): Promise<HandlersJson> {
    const remote = await this.store.reads.knownHandlers();
    const handlers = [...new Set([...this.registry.names(), ...remote])].sort();
    return { handlers, kinds: [...this.store.kinds], dialect: this.store.dialect };
  }

  /** the parameters the enqueue form renders fields for (`rawName` may still be percent-encoded) */
  procedureParameters(rawName: string) {
    return procedureParameters(this.store, rawName);
  }

  // ---- queues: limits, pause, tokens -------------------------------------------------------

  /** `patch` = { concurrencyLimit?: number | null, paused?: boolean }; `changedBy` is recorded with the change */
  async setQueue(name: string, patch: unknown, changedBy: string) {
    const n = parseWith(queueName, name, 'name');
    const p = parseWith(queuePatch, patch);
    const settings = await this.store.commands.setQueue(n, p, changedBy.slice(0, 200) || 'unknown');
    return this.queue(settings.name);
  }

  /** every queue, and the recent limit / pause changes, newest first */
  async queues(changes = DEFAULT_CHANGES_LISTED) {
    const [queues, recent] = await Promise.all([this.store.reads.listQueues(), this.store.reads.queueChanges(null, changes)]);
    return { queues: queues.map(queueJson), changes: recent.map(queueChangeJson) };
  }

  /** one queue as `queues()` lists it */
  async queue(name: string) {
    const n = parseWith(queueName, name, 'name');
    const q = (await this.store.reads.listQueues()).find((v) => v.name === n);
    if (!q) throw new NotFoundError(`no queue ${n}`);
    return queueJson(q);
  }

  /** recorded changes of one queue (or of all), newest first, at most `limit` (1…MAX_CHANGES_LISTED) */
  async queueChanges(name: string | null, limit = DEFAULT_CHANGES_LISTED) {
    const n = name === null ? null : parseWith(queueName, name, 'name');
    const changes = await this.store.reads.queueChanges(n, Math.min(Math.max(1, limit), MAX_CHANGES_LISTED));
    return changes.map(queueChangeJson);
  }

  async tokens(queue?: string) {
    const q = queue === undefined ? null : parseWith(queueName, queue, 'queue');
    return (await this.store.reads.listTokens(q)).map(tokenJson);
  }

  // ---- batches -------------------------------------------------------------------------------

  private checkBatchId(id: unknown): number {
    return parseWith(batchIdSchema, id, 'batchId');
  }

  /** the seeds' GetScheduler: `{ maxParallel?, onFailure? }` */
  async createBatch(raw: unknown = {}, caller: string | null = null): Promise<BatchJson> {
    const r = parseWith(batchRequest, raw ?? {});
    return batchJson(await this.store.commands.createBatch({ caller, maxParallel: r.maxParallel ?? null, onFailure: r.onFailure }));
  }

  async batch(id: unknown): Promise<BatchJson> {
    const b = await this.store.reads.getBatch(this.checkBatchId(id));
    if (!b) throw new NotFoundError(`no batch ${String(id)}`);
    return batchJson(b);
  }

  /** batches newest first with per-stage counts, keyset-paginated */
  async batches(filter: { status?: BatchStatus; cursor?: number; limit?: number }) {
    const page = await this.store.reads.listBatches(filter);
    return { items: page.items.map(batchJson), nextCursor: page.nextCursor };
  }

  /** the seeds' ReleaseScheduler: no more tasks; the batch completes once all are terminal */
  async releaseBatch(id: unknown): Promise<BatchJson> {
    const n = this.checkBatchId(id);
    const r = await this.store.commands.releaseBatch(n);
    if (r === 'not_found') throw new NotFoundError(`no batch ${n}`);
    if (r === 'conflict') throw new ConflictError(`batch ${n} is not open`);
    return this.batch(n);
  }

  async cancelBatch(id: unknown): Promise<{ cancelled: number; batch: BatchJson }> {
    const n = this.checkBatchId(id);
    const r = await this.store.commands.cancelBatch(n);
    if (r.result === 'not_found') throw new NotFoundError(`no batch ${n}`);
    if (r.result === 'conflict') throw new ConflictError(`batch ${n} is already finished`);
    return { cancelled: r.cancelled, batch: await this.batch(n) };
  }

  /** the seeds' Synchronization: resolves when the stage (or the whole batch) is terminal */
  async waitBatch(id: unknown, opts: WaitOptions = {}): Promise<WaitResult> {
    return waitBatch(this.store.reads, this.checkBatchId(id), opts);
  }

  // ---- schedules (lib/api/schedules.ts) --------------------------------------------------------

  /** every schedule, each with its last 20 fires */
  schedules() {
    return this.scheduling.list();
  }

  /** one schedule with its next 5 fire times and last 50 fires */
  schedule(name: string) {
    return this.scheduling.show(name);
  }

  /** `{name, cron, timezone?, kind?, command, payload?, queue?, priority?, maxAttempts?, timeoutMs?, misfire?, overlap?, enabled?}` */
  createSchedule(raw: unknown, by: string, opts: EnqueueOptions = {}) {
    return this.scheduling.create(raw, by, opts);
  }

  /** change some fields; a code-declared schedule only takes `enabled` (409 otherwise) */
  updateSchedule(name: string, patch: unknown, by: string, opts: EnqueueOptions = {}) {
    return this.scheduling.update(name, patch, by, opts);
  }

  pauseSchedule(name: string, by: string) {
    return this.scheduling.setEnabled(name, false, by);
  }

  resumeSchedule(name: string, by: string) {
    return this.scheduling.setEnabled(name, true, by);
  }

  deleteSchedule(name: string) {
    return this.scheduling.remove(name);
  }

  /** fire once now, outside the cron: one task marked manual */
  runSchedule(name: string, by: string) {
    return this.scheduling.run(name, by);
  }

  /** bring the code-declared schedules (a handlers module's `schedules` export) up to date; done at worker start */
  declareSchedules(list: unknown, by = 'code') {
    return this.scheduling.declare(list, by);
  }

  // ---- workers -------------------------------------------------------------------------------

  /** a worker pool over this store's worker (and maintenance) ports */
  createPool(opts: Partial<PoolOptions> = {}): Pool {
    return new Pool(this.store, this.registry, { logger: this.logger, ...opts });
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

export type QueueJson = Awaited<ReturnType<Readpast['queue']>>;
