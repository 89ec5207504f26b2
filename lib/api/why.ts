// "Why isn't it running?" over the read model: the facts of one task (or of every queue) gathered from
// existing reads (getTask, listQueues, listTokens, queueChanges, listWorkers, getBatch, knownHandlers,
// pendingBreakdown), judged by lib/engine/why.ts. Also the per-queue health the Overview and Queues
// pages show: pending split, oldest ready age, and the same reason.
import { NotFoundError, ValidationError } from '../engine/errors';
import type { ReadModel } from '../engine/ports';
import { servesQueue, type BatchView, type PendingBreakdown, type QueueView, type WorkerView } from '../engine/types';
import { parseWith, queueName, token as tokenSchema } from '../engine/validation';
import { whyNotRunning, type Why, type WhyBatchFacts, type WhyQueueFacts, type WhyWorkerFacts } from '../engine/why';

/** the queue changes looked through for the newest pause */
const PAUSE_CHANGES = 50;

export type WhyJson = Why;

export interface QueueHealthJson {
  queue: string;
  paused: boolean;
  pending: number;
  ready: number;
  scheduled: number;
  retrying: number;
  /** created_at of the oldest ready task; null when none is ready (or unknown) */
  oldestReadyAt: string | null;
  oldestReadyAgeMs: number | null;
  nextRunAt: string | null;
  /** no live worker serves this queue while it has ready tasks */
  noWorker: boolean;
  /** null for a queue with nothing pending */
  why: WhyJson | null;
}

/** The live workers that claim from `queue` (every queue, or it among their `--queues`), and those that do not. */
function workerFacts(workers: WorkerView[], handlers: readonly string[] | null, queue: string): WhyWorkerFacts {
  const live = workers.filter((w) => w.state === 'running');
  const serving = live.filter((w) => servesQueue(w.queues, queue));
  return {
    live: serving.length,
    busy: serving.filter((w) => w.currentTask !== null).length,
    elsewhere: live.length - serving.length,
    handlers,
  };
}

function batchFacts(b: BatchView | null): WhyBatchFacts | null {
  if (!b) return null;
  return {
    id: b.id,
    status: b.status,
    onFailure: b.onFailure,
    maxParallel: b.maxParallel,
    stages: b.stages.map((s) => ({ stage: s.stage, unfinished: s.pending + s.running, dead: s.dead, running: s.running })),
  };
}

async function queueFacts(
  reads: ReadModel,
  q: QueueView | undefined,
  name: string,
  bd: PendingBreakdown | undefined,
): Promise<WhyQueueFacts> {
  const limited = q?.concurrencyLimit != null;
  const [tokens, changes] = await Promise.all([
    limited ? reads.listTokens(name) : Promise.resolve([]),
    q?.paused ? reads.queueChanges(name, PAUSE_CHANGES) : Promise.resolve([]),
  ]);
  const granted = tokens.filter((t) => t.status === 'granted');
  const pause = changes.find((c) => c.field === 'paused' && c.newValue === 'true');
  const pending = q?.pending ?? 0;
  return {
    name,
    paused: q?.paused ?? false,
    concurrencyLimit: q?.concurrencyLimit ?? null,
    held: limited ? Math.max(q?.granted ?? 0, granted.length) : 0,
    holders: granted.map((t) => ({ token: t.token, workerId: t.workerId })),
    pausedBy: pause ? { by: pause.changedBy, at: pause.at } : null,
    // without a breakdown row every pending task counts as ready
    ready: bd ? bd.ready : pending,
    scheduled: bd?.scheduled ?? 0,
    retrying: bd?.retrying ?? 0,
    nextRunAt: bd?.nextRunAt ?? null,
  };
}

/** why a task is not running; NotFoundError for an unknown token */
export async function whyTask(reads: ReadModel, rawToken: string, now = new Date()): Promise<WhyJson> {
  const r = tokenSchema.safeParse(rawToken);
  if (!r.success) throw new ValidationError('token', 'not a task token (uuid)');
  const task = await reads.getTask(r.data.toLowerCase());
  if (!task) throw new NotFoundError(`no task with token ${rawToken}`);
  const facts = {
    now,
    task: {
      status: task.status,
      queue: task.queue,
      kind: task.kind,
      command: task.command,
      runAfter: task.runAfter,
      attempts: task.attempts,
      maxAttempts: task.maxAttempts,
      batchId: task.batchId,
      stage: task.stage,
      startedAt: task.startedAt,
      finishedAt: task.finishedAt,
    },
  };
  if (task.status !== 'pending') {
    const idle: WhyQueueFacts = {
      name: task.queue,
      paused: false,
      concurrencyLimit: null,
      held: 0,
      holders: [],
      pausedBy: null,
      ready: 0,
      scheduled: 0,
      retrying: 0,
      nextRunAt: null,
    };
    return whyNotRunning({ ...facts, queue: idle, batch: null, workers: { live: 0, busy: 0, handlers: null } });
  }
  const [queues, workers, handlers, batch] = await Promise.all([
    reads.listQueues(),
    reads.listWorkers(),
    task.kind === 'handler' ? reads.knownHandlers() : Promise.resolve(null),
    task.batchId !== null ? reads.getBatch(task.batchId) : Promise.resolve(null),
  ]);
  const queue = await queueFacts(
    reads,
    queues.find((q) => q.name === task.queue),
    task.queue,
    undefined,
  );
  return whyNotRunning({ ...facts, queue, batch: batchFacts(batch), workers: workerFacts(workers, handlers, task.queue) });
}

/**
 * Every queue's health: the pending split (pendingBreakdown; without it every pending task counts as
 * ready), the oldest ready task's age, the no-live-worker warning and the reason its ready work waits.
 */
export async function queueHealth(reads: ReadModel, now = new Date()): Promise<QueueHealthJson[]> {
  const [queues, breakdown, workers] = await Promise.all([reads.listQueues(), reads.pendingBreakdown(), reads.listWorkers()]);
  const byQueue = new Map(breakdown.map((b) => [b.queue, b]));
  const names = [...new Set([...queues.map((q) => q.name), ...breakdown.map((b) => b.queue)])].sort();
  return Promise.all(
    names.map(async (name) => {
      const q = queues.find((v) => v.name === name);
      const bd = byQueue.get(name);
      const facts = await queueFacts(reads, q, name, bd);
      const w = workerFacts(workers, null, name);
      const pending = q?.pending ?? (bd ? bd.ready + bd.scheduled + bd.retrying : 0);
      const why = pending > 0 || facts.ready > 0 ? whyNotRunning({ now, task: null, queue: facts, batch: null, workers: w }) : null;
      const oldest = bd?.oldestReadyAt ?? null;
      return {
        queue: name,
        paused: facts.paused,
        pending,
        ready: facts.ready,
        scheduled: facts.scheduled,
        retrying: facts.retrying,
        oldestReadyAt: oldest ? oldest.toISOString() : null,
        oldestReadyAgeMs: oldest ? Math.max(0, now.getTime() - oldest.getTime()) : null,
        nextRunAt: facts.nextRunAt ? facts.nextRunAt.toISOString() : null,
        noWorker: facts.ready > 0 && w.live === 0,
        why,
      };
    }),
  );
}

/** one queue's health; NotFoundError when there is no such queue */
export async function queueHealthOf(reads: ReadModel, rawName: string, now = new Date()): Promise<QueueHealthJson> {
  const name = parseWith(queueName, rawName, 'name');
  const h = (await queueHealth(reads, now)).find((q) => q.queue === name);
  if (!h) throw new NotFoundError(`no queue ${name}`);
  return h;
}
