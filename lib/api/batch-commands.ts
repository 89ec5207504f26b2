// Batches (the seeds' scheduler): create, release, cancel, wait for, and read them; the commands audited.
import { ConflictError, NotFoundError } from '../engine/errors';
import type { CancelBatchResult, ReleaseResult } from '../engine/ports';
import type { BatchStatus, BatchView } from '../engine/types';
import { batchRequest, parseWith } from '../engine/validation';
import { currentActor } from './audit';
import type { Core } from './core';
import { batchJson, type BatchJson } from './present';
import { waitBatch, type WaitOptions, type WaitResult } from './wait';

export class Batches {
  constructor(private readonly core: Core) {}

  async createBatch(raw: unknown, caller: string | null): Promise<BatchJson> {
    const r = parseWith(batchRequest, raw ?? {});
    const written =
      currentActor().source === 'library'
        ? undefined
        : this.core.audit.of((b: BatchView) => ({
            action: 'batch.create',
            target: String(b.id),
            after: { maxParallel: r.maxParallel ?? null, onFailure: r.onFailure },
          }));
    const input = { caller, maxParallel: r.maxParallel ?? null, onFailure: r.onFailure };
    return batchJson(await this.core.store.commands.createBatch(input, written));
  }

  async batch(id: unknown): Promise<BatchJson> {
    const b = await this.core.store.reads.getBatch(this.core.checkBatchId(id));
    if (!b) throw new NotFoundError(`no batch ${String(id)}`);
    return batchJson(b);
  }

  /** batches newest first with per-stage counts, keyset-paginated */
  async batches(filter: { status?: BatchStatus; cursor?: number; limit?: number }) {
    const page = await this.core.store.reads.listBatches(filter);
    return { items: page.items.map(batchJson), nextCursor: page.nextCursor };
  }

  async releaseBatch(id: unknown): Promise<BatchJson> {
    const n = this.core.checkBatchId(id);
    const written =
      currentActor().source === 'library'
        ? undefined
        : this.core.audit.of((r: ReleaseResult) => (r === 'released' ? { action: 'batch.release', target: String(n) } : null));
    const r = await this.core.store.commands.releaseBatch(n, written);
    if (r === 'not_found') throw new NotFoundError(`no batch ${n}`);
    if (r === 'conflict') throw new ConflictError(`batch ${n} is not open`);
    return this.batch(n);
  }

  async cancelBatch(id: unknown): Promise<{ cancelled: number; batch: BatchJson }> {
    const n = this.core.checkBatchId(id);
    const written = this.core.audit.of((r: CancelBatchResult) =>
      r.result === 'cancelled' ? { action: 'batch.cancel', target: String(n), count: r.cancelled } : null,
    );
    const r = await this.core.store.commands.cancelBatch(n, written);
    if (r.result === 'not_found') throw new NotFoundError(`no batch ${n}`);
    if (r.result === 'conflict') throw new ConflictError(`batch ${n} is already finished`);
    return { cancelled: r.cancelled, batch: await this.batch(n) };
  }

  async waitBatch(id: unknown, opts: WaitOptions): Promise<WaitResult> {
    return waitBatch(this.core.store.reads, this.core.checkBatchId(id), opts);
  }
}
