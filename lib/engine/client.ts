// The library's front door: validated enqueue, lookups and operator actions over a Store.
// The CLI, the HTTP API and server actions all go through here.
import { ConflictError, NotFoundError, ValidationError } from './errors';
import { HandlerRegistry, defaultRegistry } from './handlers';
import { silentLogger, type Logger } from './logger';
import { Pool, type PoolOptions } from './pool';
import { waitBatch, type WaitOptions, type WaitResult } from './batches';
import { batchJson, queueChangeJson, statsJson, statusJson, tokenJson, type BatchJson, type StatusJson } from './present';
import type { CancelResult, Store } from './store';
import type { EnqueueResult } from './types';
import {
  batchId as batchIdSchema, batchRequest, parseWith, queueName, queuePatch, token as tokenSchema, validateEnqueue, type EnqueueRequest,
} from './validation';

export interface ReadpastOptions {
  registry?: HandlerRegistry;
  logger?: Logger;
}

export interface EnqueueOptions {
  caller?: string | null;
  /** false refuses `sql` tasks (the dashboard without READPAST_ALLOW_SQL=1) */
  allowSql?: boolean;
}

export const MAX_BULK = 10_000;

export class Readpast {
  readonly registry: HandlerRegistry;
  readonly logger: Logger;

  constructor(readonly store: Store, opts: ReadpastOptions = {}) {
    this.registry = opts.registry ?? defaultRegistry();
    this.logger = opts.logger ?? silentLogger;
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
        return this.store.knownHandlers().then((names) => (remote = new Set(names)).has(name));
      },
    };
  }

  async enqueue(raw: EnqueueRequest | unknown, opts: EnqueueOptions = {}): Promise<EnqueueResult> {
    const input = await validateEnqueue(raw, await this.context(opts));
    return this.store.enqueue(input);
  }

  async enqueueMany(raws: unknown[], opts: EnqueueOptions = {}): Promise<EnqueueResult[]> {
    if (!Array.isArray(raws)) throw new ValidationError('tasks', 'must be an array');
    if (raws.length > MAX_BULK) throw new ValidationError('tasks', `at most ${MAX_BULK} per call`);
    const ctx = await this.context(opts);
    const inputs = [];
    for (let i = 0; i < raws.length; i++) inputs.push(await validateEnqueue(raws[i], ctx, `tasks.${i}`));
    return this.store.enqueueMany(inputs);
  }

  private checkToken(token: string): string {
    const r = tokenSchema.safeParse(token);
    if (!r.success) throw new ValidationError('token', 'not a task token (uuid)');
    return r.data.toLowerCase();
  }

  async status(token: string): Promise<StatusJson> {
    const t = await this.store.getTask(this.checkToken(token));
    if (!t) throw new NotFoundError(`no task with token ${token}`);
    return statusJson(t);
  }

  async cancel(token: string): Promise<Exclude<CancelResult, 'not_found' | 'conflict'>> {
    const r = await this.store.cancel(this.checkToken(token));
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('task is already finished; only pending or running tasks can be cancelled');
    return r;
  }

  async retry(token: string): Promise<'retried'> {
    const r = await this.store.retry(this.checkToken(token));
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('only dead or cancelled tasks can be retried');
    return r;
  }

  async deleteTask(token: string): Promise<'deleted'> {
    const r = await this.store.deleteTask(this.checkToken(token));
    if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
    if (r === 'conflict') throw new ConflictError('only finished tasks can be deleted');
    return r;
  }

  async stats() {
    const [queues, workers] = await Promise.all([this.store.countsByQueue(), this.store.listWorkers()]);
    return statsJson(queues, workers);
  }

  // ---- queues: limits, pause, tokens -------------------------------------------------------

  /** `patch` = { concurrencyLimit?: number | null, paused?: boolean }; `changedBy` is recorded with the change */
  async setQueue(name: string, patch: unknown, changedBy: string) {
    const n = parseWith(queueName, name, 'name');
    const p = parseWith(queuePatch, patch);
    return this.store.setQueue(n, p, changedBy.slice(0, 200) || 'unknown');
  }

  async queues() {
    const [queues, changes] = await Promise.all([this.store.listQueueViews(), this.store.queueChanges(null, 200)]);
    return { queues, changes: changes.map(queueChangeJson) };
  }

  async tokens(queue?: string) {
    const q = queue === undefined ? null : parseWith(queueName, queue, 'queue');
    return (await this.store.listTokens(q)).map(tokenJson);
  }

  // ---- batches -------------------------------------------------------------------------------

  private checkBatchId(id: unknown): number {
    return parseWith(batchIdSchema, id, 'batchId');
  }

  /** the seeds' GetScheduler: `{ maxParallel?, onFailure? }` */
  async createBatch(raw: unknown = {}, caller: string | null = null): Promise<BatchJson> {
    const r = parseWith(batchRequest, raw ?? {});
    return batchJson(await this.store.createBatch({ caller, maxParallel: r.maxParallel ?? null, onFailure: r.onFailure }));
  }

  async batch(id: unknown): Promise<BatchJson> {
    const b = await this.store.getBatch(this.checkBatchId(id));
    if (!b) throw new NotFoundError(`no batch ${String(id)}`);
    return batchJson(b);
  }

  /** the seeds' ReleaseScheduler: no more tasks; the batch completes once all are terminal */
  async releaseBatch(id: unknown): Promise<BatchJson> {
    const n = this.checkBatchId(id);
    const r = await this.store.releaseBatch(n);
    if (r === 'not_found') throw new NotFoundError(`no batch ${n}`);
    if (r === 'conflict') throw new ConflictError(`batch ${n} is not open`);
    return this.batch(n);
  }

  async cancelBatch(id: unknown): Promise<{ cancelled: number; batch: BatchJson }> {
    const n = this.checkBatchId(id);
    const r = await this.store.cancelBatch(n);
    if (r.result === 'not_found') throw new NotFoundError(`no batch ${n}`);
    if (r.result === 'conflict') throw new ConflictError(`batch ${n} is already finished`);
    return { cancelled: r.cancelled, batch: await this.batch(n) };
  }

  /** the seeds' Synchronization: resolves when the stage (or the whole batch) is terminal */
  async waitBatch(id: unknown, opts: WaitOptions = {}): Promise<WaitResult> {
    return waitBatch(this.store, this.checkBatchId(id), opts);
  }

  createPool(opts: Partial<PoolOptions> = {}): Pool {
    return new Pool(this.store, this.registry, { logger: this.logger, ...opts });
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
