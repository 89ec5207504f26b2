// The one front door: commands, each validating its input as it came, and the read model's JSON views over a
// store's ports. The HTTP API, server actions, the CLI and library users all go through here; nothing outside
// lib/engine and lib/api touches a store. Each method hands over to the part holding its concern: task-commands.ts
// (the one bulk command: bulk.ts), task-reads.ts, queues.ts, batch-commands.ts, schedules.ts, alerts.ts, runtime.ts.
import { defaultRegistry, type HandlerRegistry } from '../engine/handlers';
import { MAX_BULK } from '../engine/limits';
import { silentLogger, type Logger } from '../engine/logger';
import type { Pool } from '../engine/pool';
import type { Dialect, ReadModel, Store } from '../engine/ports';
import type {
  AttemptFilter,
  BatchStatus,
  EnqueueResult,
  FailureGroupQuery,
  FlowFilter,
  FlowResult,
  TaskFilter,
  TaskKind,
} from '../engine/types';
import type { EnqueueRequest } from '../engine/validation';
import { webhookPolicy, type WebhookPolicy } from '../engine/webhook-guard';
import { Alerts } from './alerts';
import { Audit } from './audit';
import { Batches } from './batch-commands';
import { Core, type EnqueueOptions, type ReadpastOptions } from './core';
import { Durable, type EventFilterRequest, type SendEventOptions } from './durable';
import { Flows } from './flows';
import type { DashboardHandle, DashboardOptions } from './dashboard';
import type { HistoryRequest } from './history';
import type { StatusJson } from './present';
import { DEFAULT_CHANGES_LISTED, Queues } from './queues';
import { Runtime, type PoolConfig } from './runtime';
import { Schedules } from './schedules';
import { TaskCommands } from './task-commands';
import { taskCounts } from './task-counts';
import { TaskReads } from './task-reads';
import type { ReadpastTransaction, TransactionOptions } from './transaction';
import type {
  CommandOf,
  EnqueueArg,
  EnqueueReturn,
  FlowArg,
  FlowNodeShape,
  HandlerMap,
  StatusOf,
  TaskToken,
  UntypedHandlers,
} from './typed';
import type { WaitOptions } from './wait';

export type { EnqueueOptions, ReadpastOptions };
export { MAX_BULK };

/**
 * Each front door's typed read model, kept off its public members (readModelOf): a non-enumerable property under a
 * registered symbol, so that every copy of this module sees it (the dashboard's build bundles this module into the
 * chunks of its routes, actions and boot apart: a module-level map would be one per copy).
 */
const READ_MODEL = Symbol.for('readpast.readModel');

/**
 * The typed read model (Dates, not JSON) behind a front door, for the library's own modules, its tests and benches.
 * Internal: the package does not export it (index.ts); library users read through the front door's methods.
 */
export function readModelOf<H extends HandlerMap>(rp: Readpast<H>): ReadModel {
  const reads = (rp as unknown as { [READ_MODEL]?: ReadModel })[READ_MODEL];
  if (!reads) throw new Error('not a Readpast');
  return reads;
}

/**
 * The front door. `H` is the handlers declared at openReadpast({ handlers }) (lib/api/typed.ts): with
 * them, enqueue and status are typed by command; without, they take anything and validate at run time.
 */
export class Readpast<H extends HandlerMap = UntypedHandlers> {
  readonly registry: HandlerRegistry;
  readonly logger: Logger;
  /** records every mutation of the front door in the AuditLog (who and from where: audit.ts asActor) */
  readonly audit: Audit;
  /** alert rules and fired alerts (lib/api/alerts.ts) */
  readonly alerts: Alerts;
  /** where alert webhooks may point, checked when a rule is saved and when a delivery connects */
  readonly webhooks: WebhookPolicy;
  private readonly core: Core;
  private readonly taskCommands: TaskCommands;
  private readonly taskReads: TaskReads;
  private readonly queueDesk: Queues;
  private readonly batchDesk: Batches;
  private readonly scheduling: Schedules;
  private readonly runtime: Runtime;
  private readonly flowDesk: Flows;
  private readonly durable: Durable;

  constructor(store: Store, opts: ReadpastOptions = {}) {
    this.registry = opts.registry ?? defaultRegistry();
    this.logger = opts.logger ?? silentLogger;
    Object.defineProperty(this, READ_MODEL, { value: store.reads, enumerable: false });
    this.audit = new Audit(store, this.logger);
    this.webhooks = webhookPolicy(opts.webhooks);
    this.alerts = new Alerts(store, this.audit, this.webhooks);
    this.core = new Core(store, this.registry, this.logger, this.audit, this.webhooks);
    this.taskCommands = new TaskCommands(this.core);
    this.taskReads = new TaskReads(this.core);
    this.queueDesk = new Queues(this.core);
    this.batchDesk = new Batches(this.core);
    this.scheduling = new Schedules(store, (o) => this.core.context(o), this.audit);
    this.runtime = new Runtime(this.core, opts.url ?? null);
    this.flowDesk = new Flows(this.core);
    this.durable = new Durable(this.core);
  }

  get dialect(): Dialect {
    return this.core.store.dialect;
  }
  get kinds(): readonly TaskKind[] {
    return this.core.store.kinds;
  }
  /** the database, printable (no secrets) */
  get description(): string {
    return this.core.store.description;
  }

  // ---- the database (runtime.ts) ----------------------------------------------------------------
  /** create or upgrade the schema (idempotent) */
  migrate() {
    return this.runtime.migrate();
  }
  /** SQL Server: whether T-SQL callers (readpast.ExecAsync) may enqueue sql tasks (`readpast migrate --allow-sql on`) */
  setAllowSql(allow: boolean, changedBy: string) {
    return this.runtime.setAllowSql(allow, changedBy);
  }
  /** `readpast doctor`: what will work on this database, each check with its remedy; changes nothing */
  doctor() {
    return this.runtime.doctor();
  }

  // ---- commands on tasks (task-commands.ts) ----------------------------------------------------------
  /**
   * One task: `{ command, payload?, queue?, priority?, runAt?, … }`, or `{ kind: 'sql' | 'procedure', command, … }`.
   * With declared handlers the command and its payload are checked (lib/api/typed.ts), and the token carries
   * the command for `status`.
   */
  enqueue<C extends CommandOf<H>, K extends TaskKind = 'handler'>(
    raw: EnqueueArg<H, C, K>,
    opts?: EnqueueOptions,
  ): Promise<EnqueueReturn<H, C, K>>;
  enqueue(raw: EnqueueRequest | unknown, opts: EnqueueOptions = {}): Promise<EnqueueResult> {
    return this.taskCommands.enqueue(raw, opts);
  }
  enqueueMany(raws: unknown[], opts: EnqueueOptions = {}) {
    return this.taskCommands.enqueueMany(raws, opts);
  }
  /**
   * A whole graph of tasks in one transaction: `{ name?, onParentFailure?, nodes: [{ id, command, payload?,
   * dependsOn?: [id | { id, onParentFailure }], … }] }` (≤ 10,000 nodes); returns `{ flowId, tokens }` (by node id).
   * Cycles, unknown ids and self-edges are refused naming them. lib/api/flows.ts
   */
  flow<N extends readonly FlowNodeShape<H>[] | []>(raw: FlowArg<H, N>, opts?: EnqueueOptions): Promise<FlowResult>;
  flow(raw: unknown, opts: EnqueueOptions = {}): Promise<FlowResult> {
    return this.flowDesk.create(raw, opts);
  }
  /** a flow with its nodes and edges */
  getFlow(id: unknown) {
    return this.flowDesk.get(id);
  }
  flows(filter: FlowFilter = {}) {
    return this.flowDesk.list(filter);
  }
  cancelFlow(id: unknown) {
    return this.flowDesk.cancel(id);
  }
  retryFlow(id: unknown) {
    return this.flowDesk.retryFailed(id);
  }
  /** The callback's statements and tasks commit together, or roll back when it throws (rethrown). lib/api/transaction.ts */
  withTransaction<T>(fn: (tx: ReadpastTransaction<EnqueueOptions, H>) => Promise<T>, opts?: TransactionOptions): Promise<T> {
    // (the transaction's calls are typed by H, as rp's are; they validate at run time all the same)
    return this.taskCommands.withTransaction(fn as unknown as (tx: ReadpastTransaction<EnqueueOptions>) => Promise<T>, opts);
  }
  cancel(token: string) {
    return this.taskCommands.cancel(token);
  }
  retry(token: string) {
    return this.taskCommands.retry(token);
  }
  deleteTask(token: string) {
    return this.taskCommands.deleteTask(token);
  }
  /** the bulk command on a failure filter: retry its dead tasks, the newest per dedup key; how many, how many skipped */
  retryFailed(filter: unknown) {
    return this.taskCommands.retryFailed(filter);
  }
  /** the bulk command on a failure filter: delete its dead tasks; how many */
  deleteFailed(filter: unknown) {
    return this.taskCommands.deleteFailed(filter);
  }
  /** The one bulk command: an action on tokens, a Tasks filter or a failure selection, audited (lib/api/bulk.ts) */
  bulk(request: unknown) {
    return this.taskCommands.bulk(request);
  }
  bulkPreview(request: unknown) {
    return this.taskCommands.bulkPreview(request);
  }
  /** edit a task that is not running, optionally retrying it in the same step (lib/api/edit-task.ts) */
  editTask(token: string, patch: unknown) {
    return this.taskCommands.editTask(token, patch);
  }
  /** KILL the SQL Server session running a sql or procedure task (needs ALTER ANY CONNECTION) */
  killSession(token: unknown) {
    return this.taskCommands.killSession(token);
  }

  // ---- durable handlers: events, wake, steps (durable.ts) --------------------------------------------
  /**
   * Send an event `name` (`order.paid`) with a JSON payload: every task waiting for it whose match the payload
   * contains resumes with the payload, in one transaction. `{ id, resumed, tokens }`.
   */
  sendEvent(name: string, payload?: unknown, opts: SendEventOptions = {}) {
    return this.durable.sendEvent(name, payload, opts);
  }
  /** resume a sleeping task (or one waiting for an event) now: its sleep or wait returns null */
  wake(token: string) {
    return this.durable.wake(token);
  }
  /** a durable task's steps, in order (name, kind, status, attempt, times, result or error, replays) */
  steps(token: string) {
    return this.durable.steps(token);
  }
  /** events newest first, `{ name?, before?, limit? }` (limit 1–200, default 50) */
  events(filter: EventFilterRequest = {}) {
    return this.durable.events(filter);
  }
  /** an event with the tasks it resumed */
  event(id: unknown) {
    return this.durable.event(id);
  }

  // ---- reads: tasks, attempts, workers (task-reads.ts) ------------------------------------------------
  status<C extends CommandOf<H> = never>(token: TaskToken<C>): Promise<StatusOf<H, C>>;
  status(token: string): Promise<StatusJson> {
    return this.taskReads.status(token);
  }
  stats() {
    return this.taskReads.stats();
  }
  tasks(filter: TaskFilter) {
    return this.taskReads.tasks(filter);
  }
  attempts(filter: AttemptFilter) {
    return this.taskReads.attempts(filter);
  }
  running() {
    return this.taskReads.running();
  }
  /** the Tasks page's tab counts: per state, pending split into ready / scheduled / retrying; overall or of one queue */
  taskCounts(queue?: string) {
    return taskCounts(this.core.store.reads, queue);
  }
  attemptOutput(token: string, query: { attempt?: unknown; after?: unknown } = {}) {
    return this.taskReads.attemptOutput(token, query);
  }
  /** one point per second over [since, until] from the kept aggregate */
  metrics(since: Date, until = new Date()) {
    return this.taskReads.metrics(since, until);
  }
  history(input: HistoryRequest) {
    return this.taskReads.history(input);
  }
  prometheus() {
    return this.taskReads.prometheus();
  }
  queueSparklines(input: { range?: string } = {}) {
    return this.taskReads.queueSparklines(input);
  }
  failures(filter: FailureGroupQuery) {
    return this.taskReads.failures(filter);
  }
  workers() {
    return this.taskReads.workers();
  }
  liveStatus() {
    return this.taskReads.liveStatus();
  }
  handlers() {
    return this.taskReads.handlers();
  }
  procedureParameters(rawName: string) {
    return this.taskReads.procedureParameters(rawName);
  }
  /** why a task is not running (`{reason, detail, text}`; for a task not pending, its state): lib/api/why.ts */
  why(token: string) {
    return this.taskReads.why(token);
  }

  // ---- queues: limits, pause, tokens (queues.ts) -----------------------------------------------------
  /** `patch`: { concurrencyLimit?, paused?, perKeyLimit?, keyFrom?, rateLimit? } (null clears one); `changedBy` is recorded */
  setQueue(name: string, patch: unknown, changedBy: string) {
    return this.queueDesk.setQueue(name, patch, changedBy);
  }
  queues(changes = DEFAULT_CHANGES_LISTED) {
    return this.queueDesk.queues(changes);
  }
  queue(name: string) {
    return this.queueDesk.queue(name);
  }
  /** recorded changes of one queue (or of all), newest first, at most `limit` (1…MAX_CHANGES_LISTED) */
  queueChanges(name: string | null, limit = DEFAULT_CHANGES_LISTED) {
    return this.queueDesk.queueChanges(name, limit);
  }
  /** a queue's concurrency keys with running or pending tasks, most running first, then most pending (top `limit`, ≤ 100) */
  queueKeys(name: string, limit?: number | string) {
    return this.queueDesk.queueKeys(name, limit);
  }
  /** a rate-limited queue's window now, `{limit, periodSeconds, perKey, started, nextAt}` (null: no rate limit); per key: `key`'s */
  rateWindow(name: string, key: string | null = null) {
    return this.queueDesk.rateWindow(name, key);
  }
  /** the concurrency tokens of one queue (NotFoundError when there is no such queue), or of all */
  tokens(queue?: string) {
    return this.queueDesk.tokens(queue);
  }
  queueHealth() {
    return this.queueDesk.queueHealth();
  }
  queueWhy(name: string) {
    return this.queueDesk.queueWhy(name);
  }

  // ---- batches (batch-commands.ts) -----------------------------------------------------------------
  /** the seeds' GetScheduler: `{ maxParallel?, onFailure? }` */
  createBatch(raw: unknown = {}, caller: string | null = null) {
    return this.batchDesk.createBatch(raw, caller);
  }
  batch(id: unknown) {
    return this.batchDesk.batch(id);
  }
  batches(filter: { status?: BatchStatus; cursor?: number; limit?: number }) {
    return this.batchDesk.batches(filter);
  }
  /** the seeds' ReleaseScheduler: no more tasks; the batch completes once all are terminal */
  releaseBatch(id: unknown) {
    return this.batchDesk.releaseBatch(id);
  }
  cancelBatch(id: unknown) {
    return this.batchDesk.cancelBatch(id);
  }
  /** the seeds' Synchronization: resolves when the stage (or the whole batch) is terminal */
  waitBatch(id: unknown, opts: WaitOptions = {}) {
    return this.batchDesk.waitBatch(id, opts);
  }

  // ---- schedules (schedules.ts) --------------------------------------------------------------------
  schedules() {
    return this.scheduling.list();
  }
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
  /** resume (true) or pause (false); `enabled` must be true or false */
  setScheduleEnabled(name: string, enabled: unknown, by: string) {
    return this.scheduling.setEnabled(name, enabled, by);
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

  // ---- workers and the dashboard (runtime.ts) ---------------------------------------------------------
  /** the pool size stored for a host and role (PoolSettings), or null: applied when that pool starts */
  poolSetting(host: string, role: string) {
    return this.runtime.poolSetting(host, role);
  }
  /** store the size of the pool of `role` on `host` (it starts with it again), recorded as `pool.resize` */
  savePoolSize(s: { host: string; role: string; size: number; before: number | null }) {
    return this.runtime.savePoolSize(s);
  }
  /** a worker pool over this store's worker (and maintenance) ports */
  createPool(opts: PoolConfig = {}): Pool {
    return this.runtime.createPool(opts);
  }
  /** Serve the dashboard on this database as a child process (lib/api/dashboard.ts); stopped by close() or its stop() */
  serveDashboard(opts: DashboardOptions = {}): Promise<DashboardHandle> {
    return this.runtime.serveDashboard(opts);
  }
  /** Stop the dashboards this instance serves, then close the store. */
  close() {
    return this.runtime.close();
  }
}

export type QueueJson = Awaited<ReturnType<Readpast['queue']>>;
