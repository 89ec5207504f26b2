// Commands on tasks: enqueue (one, many, in the caller's transaction), cancel, retry, delete, edit, KILL, and
// the one bulk command (lib/api/bulk.ts) that every "many at once" goes through. Each takes its input as it
// came (unvalidated), validates it, and writes its audit row in the store's transaction.
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import { MAX_BULK } from '../engine/limits';
import type { CancelResult, DeleteResult, RetryResult } from '../engine/ports';
import type { EnqueueResult, RetryFailedResult } from '../engine/types';
import { validateEnqueue } from '../engine/validation';
import { validateEnqueueMany } from '../engine/validation-bulk';
import { validateFlow } from '../engine/flows';
import { libraryCall } from './audit';
import { bulkPreview, bulkTasks, deleteFailures, parseFailureFilter, retryFailures, type BulkResultJson } from './bulk';
import type { Core, EnqueueOptions } from './core';
import { editTask } from './edit-task';
import { killTaskSession } from './procedures';
import { withTransaction, type ReadpastTransaction, type TransactionOptions } from './transaction';
import { sendTask, sendTasks } from './trace-enqueue';

export class TaskCommands {
  constructor(private readonly core: Core) {}

  async enqueue(raw: unknown, opts: EnqueueOptions = {}): Promise<EnqueueResult> {
    const { store, audit } = this.core;
    const input = await validateEnqueue(raw, this.core.context(opts));
    // a library's own producing is its business (and its hot path); what people do is recorded
    const written = libraryCall()
      ? undefined
      : audit.of((r: EnqueueResult) =>
          r.created
            ? { action: 'task.enqueue', target: r.token, after: { queue: input.queue, kind: input.kind, command: input.command }, count: 1 }
            : null,
        );
    return sendTask(input, opts, (traced) => store.commands.enqueue(traced, { transaction: opts.transaction }, written));
  }

  /** at most MAX_BULK, in one transaction; results in input order */
  async enqueueMany(raws: unknown[], opts: EnqueueOptions = {}): Promise<EnqueueResult[]> {
    if (!Array.isArray(raws)) throw new ValidationError('tasks', 'must be an array');
    if (raws.length > MAX_BULK) throw new ValidationError('tasks', `at most ${MAX_BULK} per call`);
    const inputs = await validateEnqueueMany(raws, this.core.context(opts), 'tasks');
    const written = libraryCall()
      ? undefined
      : this.core.audit.of((rs: EnqueueResult[]) => {
          const created = rs.filter((r) => r.created);
          if (!created.length) return null;
          const after = { tokens: created.slice(0, 20).map((r) => r.token) };
          return { action: 'tasks.enqueue', target: `tokens:${created.length}`, after, count: created.length };
        });
    return sendTasks(inputs, opts, (traced) => this.core.store.commands.enqueueMany(traced, { transaction: opts.transaction }, written));
  }

  withTransaction<T>(fn: (tx: ReadpastTransaction<EnqueueOptions>) => Promise<T>, opts?: TransactionOptions): Promise<T> {
    const validate = async (raw: unknown, o: EnqueueOptions, path?: string) => validateEnqueue(raw, this.core.context(o), path);
    const validateFlowIn = async (raw: unknown, o: EnqueueOptions) => validateFlow(raw, this.core.context(o));
    return withTransaction(this.core.store, validate, fn, opts, validateFlowIn);
  }

  async cancel(token: unknown): Promise<Exclude<CancelResult, 'not_found' | 'conflict'>> {
    const t = this.core.checkToken(token);
    const written = this.core.audit.of((r: CancelResult) =>
      r === 'cancelled' || r === 'cancel_requested' ? { action: 'task.cancel', target: t, after: { result: r }, count: 1 } : null,
    );
    const r = await this.core.store.commands.cancel(t, written);
    if (r === 'not_found') throw new NotFoundError(`no task with token ${String(token)}`);
    if (r === 'conflict') throw new ConflictError('task is already finished; only pending or running tasks can be cancelled');
    return r;
  }

  async retry(token: unknown): Promise<'retried'> {
    const t = this.core.checkToken(token);
    const written = this.core.audit.of((r: RetryResult) => (r === 'retried' ? { action: 'task.retry', target: t, count: 1 } : null));
    const r = await this.core.store.commands.retry(t, written);
    if (r === 'not_found') throw new NotFoundError(`no task with token ${String(token)}`);
    if (r === 'conflict') throw new ConflictError('only dead or cancelled tasks can be retried');
    if (r === 'batch_aborted') {
      throw new ConflictError('the batch was aborted: a task of an earlier stage failed, so this stage will not run');
    }
    if (typeof r === 'object') throw new ConflictError(`dedup key "${r.dedupKey}" is held by task ${r.token} (${r.status})`);
    return r;
  }

  async deleteTask(token: unknown): Promise<'deleted'> {
    const t = this.core.checkToken(token);
    const written = this.core.audit.of((r: DeleteResult) => (r === 'deleted' ? { action: 'task.delete', target: t, count: 1 } : null));
    const r = await this.core.store.commands.deleteTask(t, written);
    if (r === 'not_found') throw new NotFoundError(`no task with token ${String(token)}`);
    if (r === 'conflict') throw new ConflictError('only finished tasks can be deleted');
    return r;
  }

  /** the bulk command on a failure filter: retry its dead tasks, the newest per dedup key (RetryFailedResult) */
  async retryFailed(filter: unknown): Promise<RetryFailedResult> {
    return retryFailures(this.core.store, this.core.audit, parseFailureFilter(filter));
  }

  /** the bulk command on a failure filter: delete its dead tasks; how many */
  async deleteFailed(filter: unknown): Promise<number> {
    return deleteFailures(this.core.store, this.core.audit, parseFailureFilter(filter));
  }

  /** the one bulk command (lib/api/bulk.ts) */
  bulk(request: unknown): Promise<BulkResultJson> {
    return bulkTasks(this.core.store, this.core.audit, request);
  }

  /** how many tasks a bulk action would change (lib/api/bulk.ts) */
  bulkPreview(request: unknown) {
    return bulkPreview(this.core.store, request);
  }

  editTask(token: unknown, patch: unknown) {
    return editTask(this.core.store, this.core.audit, this.core.checkToken(token), patch);
  }

  async killSession(token: unknown): Promise<{ status: 'killed' }> {
    const r = await killTaskSession(this.core.store, token);
    await this.core.audit.record('session.kill', String(token).toLowerCase(), { count: 1 });
    return r;
  }
}
