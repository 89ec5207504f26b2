// The one front door: validated commands and the read model's JSON views over a store's ports. The
// HTTP API, server actions, the CLI (`--json` included) and library users all go through here; nothing
// outside lib/engine and lib/api touches a store.
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import { HandlerRegistry, defaultRegistry, registerBuiltinHandlers } from '../engine/handlers';
import { MAX_BULK } from '../engine/limits';
import { silentLogger, type Logger } from '../engine/logger';
import { Pool, type PoolOptions } from '../engine/pool';
import { webhookPolicy, type WebhookPolicy, type WebhookPolicyOptions } from '../engine/webhook-guard';
import type { CancelBatchResult, CancelResult, DeleteResult, Dialect, ReadModel, ReleaseResult, RetryResult, Store } from '../engine/ports';
import type {
  AttemptFilter,
  BatchStatus,
  BatchView,
  EnqueueResult,
  FailureFilter,
  FailureGroupQuery,
  LiveStatus,
  QueueSettings,
  RetryFailedResult,
  TaskFilter,
  TaskKind,
} from '../engine/types';
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
import { validateEnqueueMany } from '../engine/validation-bulk';
import {
  attemptJson,
  batchJson,
  doctorJson,
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
import { Alerts } from './alerts';
import { attemptOutput, type AttemptOutputJson } from './attempt-output';
import { Audit, currentActor } from './audit';
import { bulkPreview, bulkTasks, editTask, failureGroupPage, taskFingerprint } from './bulk';
import { historyJson, sparklinesJson, type HistoryRequest } from './history';
import { killTaskSession, procedureParameters } from './procedures';
import { Schedules } from './schedules';
import { withTransaction, type ReadpastTransaction, type TransactionOptions } from './transaction';
import { getPoolSetting, savePoolSize } from './pool-settings';
import { waitBatch, type WaitOptions, type WaitResult } from './wait';
import { queueHealth, queueHealthOf, whyTask } from './why';
import { startDashboard, type DashboardHandle, type DashboardOptions } from './dashboard';
import type { CommandOf, EnqueueArg, EnqueueResultOf, HandlerMap, SqlTask, StatusOf, TaskToken, UntypedHandlers } from './typed';

export interface ReadpastOptions {
  registry?: HandlerRegistry;
  logger?: Logger;
  /**
   * Where alert webhooks may point (lib/engine/webhook-guard.ts): an allow-list in READPAST_WEBHOOK_ALLOW's
   * syntax (default: that variable; a bad entry throws here) and a resolver (default: the system's).
   */
  webhooks?: WebhookPolicyOptions;
  /** the database URL the store was opened with (serveDashboard serves the same database) */
  url?: string;
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

/**
 * The front door. `H` is the handlers declared at openReadpast({ handlers }) (lib/api/typed.ts): with
 * them, enqueue and status are typed by command; without, they take anything and validate at run time.
 */
export class Readpast<H extends HandlerMap = UntypedHandlers> {
  readonly registry: HandlerRegistry;
  readonly logger: Logger;
  /** the typed read model (Dates, not JSON) for library users and tests; the JSON views below are built from it */
  readonly reads: ReadModel;
  private readonly scheduling: Schedules;
  /** records every mutation of the front door in the AuditLog (who and from where: audit.ts asActor) */
  readonly audit: Audit;
  /** alert rules and fired alerts (lib/api/alerts.ts) */
  readonly alerts: Alerts;
  /** where alert webhooks may point, checked when a rule is saved and when a delivery connects */
  readonly webhooks: WebhookPolicy;
  private readonly url: string | null;
  private readonly dashboards = new Set<DashboardHandle>();

  constructor(
    private readonly store: Store,
    opts: ReadpastOptions = {},
  ) {
    this.registry = opts.registry ?? defaultRegistry();
    this.logger = opts.logger ?? silentLogger;
    this.reads = store.reads;
    this.audit = new Audit(store, this.logger);
    this.webhooks = webhookPolicy(opts.webhooks);
    this.alerts = new Alerts(store, this.audit, this.webhooks);
    this.scheduling = new Schedules(store, (opts) => this.context(opts), this.audit);
    this.url = opts.url ?? null;
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
    const after = allow ? 'on' : 'off';
    await this.store.sqlServer.setAllowSql(
      allow,
      changedBy,
      this.audit.of(() => ({ action: 'settings.allow_sql', target: 'allow_sql', after })),
    );
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

  async enqueue<C extends CommandOf<H>>(raw: EnqueueArg<H, C>, opts?: EnqueueOptions): Promise<EnqueueResultOf<H, C>>;
  async enqueue(raw: SqlTask, opts?: EnqueueOptions): Promise<EnqueueResult>;
  async enqueue(raw: EnqueueRequest | unknown, opts: EnqueueOptions = {}): Promise<EnqueueResult> {
    const input = await validateEnqueue(raw, await this.context(opts));
    // a library's own producing is its business (and its hot path); what people do is recorded
    const audit =
      currentActor().source === 'library'
        ? undefined
        : this.audit.of((r: EnqueueResult) =>
            r.created
              ? {
                  action: 'task.enqueue',
                  target: r.token,
                  after: { queue: input.queue, kind: input.kind, command: input.command },
                  count: 1,
                }
              : null,
          );
    return this.store.commands.enqueue(input, { transaction: opts.transaction }, audit);
  }

  async enqueueMany(raws: unknown[], opts: EnqueueOptions = {}): Promise<EnqueueResult[]> {
    if (!Array.isArray(raws)) throw new ValidationError('tasks', 'must be an array');
    if (raws.length > MAX_BULK) throw new ValidationError('tasks', `at most ${MAX_BULK} per call`);
    const ctx = await this.context(opts);
    const inputs = await validateEnqueueMany(raws, ctx, 'tasks');
    const audit =
      currentActor().source === 'library'
        ? undefined
        : this.audit.of((rs: EnqueueResult[]) => {
            const created = rs.filter((r) => r.created);
            if (!created.length) return null;
            const after = { tokens: created.slice(0, 20).map((r) => r.token) };
            return { action: 'tasks.enqueue', target: `tokens:${created.length}`, after, count: created.length };
          });
    return this.store.commands.enqueueMany(inputs, { transaction: opts.transaction }, audit);
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
    const t = this.checkToken(token);
    const audit = this.audit.of((r: CancelResult) =>
      r === 'cancelled' || r === 'cancel_requested' ? { action: 'task.cancel', target: t, after: { result: r }, count: 1 } : null,
    );
    const r = await this.store.commands.cancel(t, audit);
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('task is already finished; only pending or running tasks can be cancelled');
    return r;
  }

  async retry(token: string): Promise<'retried'> {
    const t = this.checkToken(token);
    const audit = this.audit.of((r: RetryResult) => (r === 'retried' ? { action: 'task.retry', target: t, count: 1 } : null));
    const r = await this.store.commands.retry(t, audit);
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('only dead or cancelled tasks can be retried');
    if (r === 'batch_aborted') {
      throw new ConflictError('the batch was aborted: a task of an earlier stage failed, so this stage will not run');
    }
    if (typeof r === 'object') throw new ConflictError(`dedup key "${r.dedupKey}" is held by task ${r.token} (${r.status})`);
    return r;
  }

  async deleteTask(token: string): Promise<'deleted'> {
    const t = this.checkToken(token);
    const audit = this.audit.of((r: DeleteResult) => (r === 'deleted' ? { action: 'task.delete', target: t, count: 1 } : null));
    const r = await this.store.commands.deleteTask(t, audit);
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('only finished tasks can be deleted');
    return r;
  }

  /**
   * retry every dead task matching the (validated) filter: the newest per dedup key; how many came back
   * and how many stayed dead because their dedup key is held (RetryFailedResult)
   */
  async retryFailed(filter: FailureFilter): Promise<RetryFailedResult> {
    const target = `filter:${JSON.stringify(filter)}`;
    const audit = this.audit.of((r: RetryFailedResult) => ({
      action: 'failures.retry',
      target,
      before: filter,
      after: { skipped: r.skipped },
      count: r.retried,
    }));
    return this.store.commands.retryFailed(filter, audit);
  }

  /** delete every dead task matching the (validated) filter; how many */
  async deleteFailed(filter: FailureFilter): Promise<number> {
    const target = `filter:${JSON.stringify(filter)}`;
    return this.store.commands.deleteFailed(
      filter,
      this.audit.of((n: number) => ({ action: 'failures.delete', target, before: filter, count: n })),
    );
  }

  /** KILL the SQL Server session running a sql or procedure task (needs ALTER ANY CONNECTION) */
  async killSession(token: unknown): Promise<{ status: 'killed' }> {
    const r = await killTaskSession(this.store, token);
    await this.audit.record('session.kill', String(token).toLowerCase(), { count: 1 });
    return r;
  }

  // ---- reads: tasks, attempts, workers --------------------------------------------------------

  async status<C extends CommandOf<H> = never>(token: TaskToken<C>): Promise<StatusOf<H, C>>;
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
    const scan = page.partial ? { partial: true, scanned: page.scanned ?? null } : {};
    return { items: page.items.map(taskJson), nextCursor: page.nextCursor, ...scan };
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

  /** `GET /api/tasks/{token}/logs`: an attempt's log lines after `after` and its progress (attempt-output.ts) */
  attemptOutput(token: string, query: { attempt?: unknown; after?: unknown } = {}): Promise<AttemptOutputJson> {
    return attemptOutput(this.store.reads, token, query);
  }

  /** one point per second over [since, until] from the kept aggregate */
  async metrics(since: Date, until = new Date()) {
    return { points: metricsJson(await this.store.reads.metrics(since), since, until) };
  }

  /** History of a range (15m … 30d), bucketed to it, optionally of one queue or command (lib/api/history.ts). */
  history(input: HistoryRequest) {
    return historyJson(this.store.reads, input);
  }

  /**
   * The Prometheus text exposition of one scrape (GET /metrics; lib/api/metrics.ts). Loaded on first use:
   * prom-client is not worth its load time to a one-shot CLI command.
   */
  async prometheus(): Promise<string> {
    const { prometheusText } = await import('./metrics');
    return prometheusText(this.store.reads);
  }

  /** Succeeded per queue over the last hour or day: the Queues page's sparklines. */
  queueSparklines(input: { range?: string } = {}) {
    return sparklinesJson(this.store.reads, input);
  }

  /** Failed & poison: recent failures grouped by message, and the newest dead tasks. */
  async failures(filter: FailureGroupQuery) {
    // the groups first: they fingerprint dead tasks that have none yet (lib/api/bulk.ts)
    const groups = await failureGroupPage(this.store, filter);
    const dead = await this.store.reads.listTasks({
      status: 'dead',
      queue: filter.queue,
      q: filter.q ?? filter.message,
      command: filter.command,
      limit: MAX_DEAD_LISTED,
    });
    const items = dead.items.map((t) => ({ ...taskJson(t), fingerprint: taskFingerprint(taskJson(t)) }));
    return {
      groups: groups.items,
      nextCursor: groups.nextCursor,
      dead: filter.fingerprint ? items.filter((t) => t.fingerprint === filter.fingerprint) : items,
    };
  }

  /** how many tasks a bulk action would change (lib/api/bulk.ts) */
  bulkPreview(request: unknown) {
    return bulkPreview(this.store, request);
  }

  /** a bulk action on tokens or on a filter of the Tasks page, in chunks, audited (lib/api/bulk.ts) */
  bulk(request: unknown) {
    return bulkTasks(this.store, this.audit, request);
  }

  /** edit a task that is not running, optionally retrying it in the same step (lib/api/bulk.ts) */
  editTask(token: string, patch: unknown) {
    return editTask(this.store, this.audit, this.checkToken(token), patch);
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
    const old = (await this.store.reads.listQueues()).find((v) => v.name === n);
    const before = { concurrencyLimit: old?.concurrencyLimit ?? null, paused: old?.paused ?? false };
    const audit = this.audit.of(
      (settings: QueueSettings) => {
        const after = { concurrencyLimit: settings.concurrencyLimit, paused: settings.paused };
        const changed = (Object.keys(after) as (keyof typeof after)[]).filter((k) => before[k] !== after[k]);
        if (!changed.length) return null;
        return {
          action: 'queue.update',
          target: n,
          before: Object.fromEntries(changed.map((k) => [k, before[k]])),
          after: Object.fromEntries(changed.map((k) => [k, after[k]])),
          count: 1,
        };
      },
      changedBy.slice(0, 200),
    );
    const settings = await this.store.commands.setQueue(n, p, changedBy.slice(0, 200) || 'unknown', audit);
    return this.queue(settings.name);
  }

  /** every queue, and the recent limit / pause changes, newest first */
  async queues(changes = DEFAULT_CHANGES_LISTED) {
    const [queues, recent] = await Promise.all([this.store.reads.listQueues(), this.audit.queueChanges(null, changes)]);
    return { queues: queues.map(queueJson), changes: recent.map(queueChangeJson) };
  }

  /** why a task is not running (`{reason, detail, text}`; for a task not pending, its state): lib/api/why.ts */
  why(token: string) {
    return whyTask(this.store.reads, token);
  }

  /** every queue's pending split, oldest ready age, no-live-worker warning and why its work waits */
  queueHealth() {
    return queueHealth(this.store.reads);
  }

  /** one queue's health (`queueHealth()`) */
  queueWhy(name: string) {
    return queueHealthOf(this.store.reads, name);
  }

  /** one queue as `queues()` lists it */
  async queue(name: string) {
    const n = parseWith(queueName, name, 'name');
    const q = (await this.store.reads.listQueues()).find((v) => v.name === n);
    if (!q) throw new NotFoundError(`no queue ${n}`);
    return queueJson(q);
  }

  /** NotFoundError for a queue that does not exist (what is asked of one queue answers 404 / exit 3, never an empty list) */
  private async knownQueue(name: string): Promise<void> {
    if (!(await this.store.reads.listQueues()).some((v) => v.name === name)) throw new NotFoundError(`no queue ${name}`);
  }

  /** recorded changes of one queue (or of all), newest first, at most `limit` (1…MAX_CHANGES_LISTED) */
  async queueChanges(name: string | null, limit = DEFAULT_CHANGES_LISTED) {
    const n = name === null ? null : parseWith(queueName, name, 'name');
    if (n !== null) await this.knownQueue(n);
    const changes = await this.audit.queueChanges(n, Math.min(Math.max(1, limit), MAX_CHANGES_LISTED));
    return changes.map(queueChangeJson);
  }

  /** the concurrency tokens of one queue (NotFoundError when there is no such queue), or of all */
  async tokens(queue?: string) {
    const q = queue === undefined ? null : parseWith(queueName, queue, 'queue');
    if (q !== null) await this.knownQueue(q);
    return (await this.store.reads.listTokens(q)).map(tokenJson);
  }

  // ---- batches -------------------------------------------------------------------------------

  private checkBatchId(id: unknown): number {
    return parseWith(batchIdSchema, id, 'batchId');
  }

  /** the seeds' GetScheduler: `{ maxParallel?, onFailure? }` */
  async createBatch(raw: unknown = {}, caller: string | null = null): Promise<BatchJson> {
    const r = parseWith(batchRequest, raw ?? {});
    const audit =
      currentActor().source === 'library'
        ? undefined
        : this.audit.of((b: BatchView) => ({
            action: 'batch.create',
            target: String(b.id),
            after: { maxParallel: r.maxParallel ?? null, onFailure: r.onFailure },
          }));
    const b = await this.store.commands.createBatch({ caller, maxParallel: r.maxParallel ?? null, onFailure: r.onFailure }, audit);
    return batchJson(b);
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
    const audit =
      currentActor().source === 'library'
        ? undefined
        : this.audit.of((r: ReleaseResult) => (r === 'released' ? { action: 'batch.release', target: String(n) } : null));
    const r = await this.store.commands.releaseBatch(n, audit);
    if (r === 'not_found') throw new NotFoundError(`no batch ${n}`);
    if (r === 'conflict') throw new ConflictError(`batch ${n} is not open`);
    return this.batch(n);
  }

  async cancelBatch(id: unknown): Promise<{ cancelled: number; batch: BatchJson }> {
    const n = this.checkBatchId(id);
    const audit = this.audit.of((r: CancelBatchResult) =>
      r.result === 'cancelled' ? { action: 'batch.cancel', target: String(n), count: r.cancelled } : null,
    );
    const r = await this.store.commands.cancelBatch(n, audit);
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
  async createSchedule(raw: unknown, by: string, opts: EnqueueOptions = {}) {
    return this.scheduling.create(raw, by, opts);
  }

  /** change some fields; a code-declared schedule only takes `enabled` (409 otherwise) */
  async updateSchedule(name: string, patch: unknown, by: string, opts: EnqueueOptions = {}) {
    return this.scheduling.update(name, patch, by, opts);
  }

  async pauseSchedule(name: string, by: string) {
    return this.scheduling.setEnabled(name, false, by);
  }

  async resumeSchedule(name: string, by: string) {
    return this.scheduling.setEnabled(name, true, by);
  }

  async deleteSchedule(name: string) {
    return this.scheduling.remove(name);
  }

  /** fire once now, outside the cron: one task marked manual */
  async runSchedule(name: string, by: string) {
    return this.scheduling.run(name, by);
  }

  /** bring the code-declared schedules (a handlers module's `schedules` export) up to date; done at worker start */
  declareSchedules(list: unknown, by = 'code') {
    return this.scheduling.declare(list, by);
  }

  // ---- workers -------------------------------------------------------------------------------

  /** the pool size stored for a host and role (PoolSettings), or null: applied when that pool starts */
  poolSetting(host: string, role: string) {
    return getPoolSetting(this.store, host, role);
  }

  /** store the size of the pool of `role` on `host` (it starts with it again), recorded as `pool.resize` */
  savePoolSize(s: { host: string; role: string; size: number; before: number | null }) {
    return savePoolSize(this.store, this.audit, s);
  }

  /** a worker pool over this store's worker (and maintenance) ports */
  createPool(opts: Partial<PoolOptions> = {}): Pool {
    // alert deliveries (queue readpast.alerts) run in every pool, whatever registry it was given
    const alertRule = (id: number) => this.store.reads.getAlertRule(id);
    return new Pool(this.store, registerBuiltinHandlers(this.registry, alertRule, this.webhooks), { logger: this.logger, ...opts });
  }

  /**
   * Serve the prebuilt dashboard on this database: `readpast dashboard` as a managed child process (see
   * lib/api/dashboard.ts), with the same settings and checks as `npm start`. Resolves once it answers;
   * stopped by close() (or the handle's stop()), and it stops by itself when this process is gone.
   */
  async serveDashboard(opts: DashboardOptions = {}): Promise<DashboardHandle> {
    if (!this.url) throw new ValidationError('url', 'this Readpast was not opened from a database URL (use openReadpast)');
    const handle = await startDashboard(this.url, opts, this.logger);
    this.dashboards.add(handle);
    handle.exited.then(() => this.dashboards.delete(handle));
    return handle;
  }

  /** Stop the dashboards this instance serves, then close the store. */
  async close(): Promise<void> {
    await Promise.all([...this.dashboards].map((d) => d.stop()));
    await this.store.close();
  }
}

export type QueueJson = Awaited<ReturnType<Readpast['queue']>>;
