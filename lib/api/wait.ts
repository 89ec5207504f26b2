// Waiting on a batch — the seeds' Synchronization: resolves when every task of a stage (and of the
// stages before it), or of the whole batch, is terminal, with their outcomes.
import { NotFoundError } from '../engine/errors';
import { sleep } from '../engine/handlers';
import { batchJson, taskJson, type BatchJson } from './present';
import type { ReadModel } from '../engine/ports';
import type { BatchView } from '../engine/types';

export interface WaitOptions {
  /** wait for this stage only (and those before it); default: the whole batch */
  stage?: number;
  /** give up after this long and report `done: false` (default: wait forever) */
  timeoutMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
}

export interface WaitResult {
  done: boolean;
  batch: BatchJson;
  /** the tasks of the stage (or of the batch) with their outcomes; filled when done */
  tasks: ReturnType<typeof taskJson>[];
}

export function isSettled(b: BatchView, stage?: number): boolean {
  if (b.status === 'cancelled') return b.stages.every((s) => s.running === 0);
  const relevant = stage === undefined ? b.stages : b.stages.filter((s) => s.stage <= stage);
  return relevant.every((s) => s.pending + s.running === 0);
}

export async function waitBatch(store: Pick<ReadModel, 'getBatch' | 'listTasks'>, id: number, opts: WaitOptions = {}): Promise<WaitResult> {
  const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
  let pollMs = Math.min(opts.pollMs ?? 250, 250);
  for (;;) {
    const b = await store.getBatch(id);
    if (!b) throw new NotFoundError(`no batch ${id}`);
    if (isSettled(b, opts.stage)) {
      const tasks = [];
      let cursor: number | undefined;
      do {
        const page = await store.listTasks({ batchId: id, stage: opts.stage, cursor, limit: 500 });
        tasks.push(...page.items.map(taskJson));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      tasks.reverse();
      return { done: true, batch: batchJson(b), tasks };
    }
    if (Date.now() >= deadline || opts.signal?.aborted) return { done: false, batch: batchJson(b), tasks: [] };
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())), opts.signal).catch(() => {});
    pollMs = Math.min(opts.pollMs ?? 1000, pollMs * 2);
  }
}
