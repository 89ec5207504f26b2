// "Why isn't it running?" over the read model: the facts of one task (or of every queue) gathered from
// existing reads (getTask, then lib/engine/why-read.ts: listQueues, listTasks (running), queueChanges,
// listWorkers, getBatch, knownHandlers; pendingBreakdown), judged by lib/engine/why.ts. Also the per-queue
// health the Overview and Queues pages show: pending split, oldest ready age, and the same reason.
import { NotFoundError, ValidationError } from '../engine/errors';
import type { ReadModel } from '../engine/ports';
import { parseWith, queueName, token as tokenSchema } from '../engine/validation';
import { whyNotRunning, type Why } from '../engine/why';
import { queueFacts, whyOfTask, workerFacts } from '../engine/why-read';

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

/** why a task is not running; NotFoundError for an unknown token */
export async function whyTask(reads: ReadModel, rawToken: string, now = new Date()): Promise<WhyJson> {
  const r = tokenSchema.safeParse(rawToken);
  if (!r.success) throw new ValidationError('token', 'not a task token (uuid)');
  const task = await reads.getTask(r.data.toLowerCase());
  if (!task) throw new NotFoundError(`no task with token ${rawToken}`);
  return whyOfTask(reads, task, now);
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
      const facts = await queueFacts(reads, q, name, bd, now);
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
