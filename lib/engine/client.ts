// The library's front door: validated enqueue, lookups and operator actions over a Store.
// The CLI, the HTTP API and server actions all go through here.
import { ConflictError, NotFoundError, ValidationError } from './errors';
import { HandlerRegistry, defaultRegistry } from './handlers';
import { silentLogger, type Logger } from './logger';
import { Pool, type PoolOptions } from './pool';
import { statsJson, statusJson, type StatusJson } from './present';
import type { CancelResult, Store } from './store';
import type { EnqueueResult } from './types';
import { token as tokenSchema, validateEnqueue, type EnqueueRequest } from './validation';

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
      knowsHandler: async (name: string) => {
        if (this.registry.has(name)) return true;
        remote ??= new Set(await this.store.knownHandlers());
        return remote.has(name);
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

  createPool(opts: Partial<PoolOptions> = {}): Pool {
    return new Pool(this.store, this.registry, { logger: this.logger, ...opts });
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
