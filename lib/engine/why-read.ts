// The facts "why isn't it running?" judges (why.ts), gathered from the read model: a task's own facts, its
// queue's (pause, limit and who holds its tokens), its batch's stages and the live workers. lib/api/why.ts
// answers the front door's `why` and queue health with these; the contract suite asks the same read of
// every store and holds its answer to what the claim did (db/contract/claim-model.ts).
import type { ReadModel } from './ports';
import {
  NO_TIMEOUT,
  servesQueue,
  type Suspension,
  type BatchView,
  type TaskDetail,
  type PendingBreakdown,
  type QueueView,
  type TaskView,
  type WorkerView,
} from './types';
import { whyNotRunning, type Why, type WhyBatchFacts, type WhyFacts, type WhyQueueFacts, type WhyWorkerFacts } from './why';

/** the queue changes looked through for the newest pause */
const PAUSE_CHANGES = 50;

/** The live workers that claim from `queue` (every queue, or it among their `--queues`), and those that do not. */
export function workerFacts(workers: WorkerView[], handlers: readonly string[] | null, queue: string): WhyWorkerFacts {
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

/**
 * What holds a limited queue's tokens as the claim counts them (rule under_queue_limit): its running and claimed
 * tasks with a live lease at `now`, token or not (a task claimed while the queue was unlimited holds none but
 * counts; a token whose attempt lost its lease is free to grant again).
 */
async function holding(reads: ReadModel, queue: string, now: Date, concurrencyKey?: string): Promise<TaskView[]> {
  const out: TaskView[] = [];
  for (const status of ['running', 'claimed'] as const) {
    for (let cursor: number | undefined; ; ) {
      const page = await reads.listTasks({ status, queue, concurrencyKey, cursor, limit: 200 });
      out.push(...page.items.filter((t) => t.leaseUntil !== null && t.leaseUntil.getTime() >= now.getTime()));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
  }
  return out;
}

export async function queueFacts(
  reads: ReadModel,
  q: QueueView | undefined,
  name: string,
  bd: PendingBreakdown | undefined,
  now: Date,
  /** the task's concurrency key (a per-key rate window is the key's) */
  key: string | null = null,
): Promise<WhyQueueFacts> {
  const limited = q?.concurrencyLimit != null;
  const [holders, changes] = await Promise.all([
    limited ? holding(reads, name, now) : Promise.resolve([]),
    q?.paused ? reads.queueChanges(name, PAUSE_CHANGES) : Promise.resolve([]),
  ]);
  const pause = changes.find((c) => c.field === 'paused' && c.newValue === 'true');
  const rate = q?.rateLimit ? await reads.rateWindow(name, key) : null;
  const pending = q?.pending ?? 0;
  return {
    name,
    paused: q?.paused ?? false,
    concurrencyLimit: q?.concurrencyLimit ?? null,
    perKeyLimit: q?.perKeyLimit ?? null,
    rate: rate && { limit: rate.limit, periodSeconds: rate.periodSeconds, perKey: rate.perKey, started: rate.started, nextAt: rate.nextAt },
    held: holders.length,
    // oldest first
    holders: holders.reverse().map((t) => ({ token: t.token, workerId: t.workerId })),
    pausedBy: pause ? { by: pause.changedBy, at: pause.at } : null,
    // without a breakdown row every pending task counts as ready
    ready: bd ? bd.ready : pending,
    scheduled: bd?.scheduled ?? 0,
    retrying: bd?.retrying ?? 0,
    nextRunAt: bd?.nextRunAt ?? null,
  };
}

/** The step a suspended task waits on (the last one recorded sleeping or waiting); its run-after says until when. */
async function suspensionOf(reads: ReadModel, task: TaskView, kind: Suspension): Promise<WhyFacts['suspension']> {
  const step = (await reads.listSteps(task.token))?.findLast((s) => s.status === 'sleeping' || s.status === 'waiting');
  const until = task.runAfter.getTime() < NO_TIMEOUT.getTime() ? task.runAfter : null;
  return { kind, step: step?.name ?? '?', until, event: step?.event ?? null, match: step?.match ?? null };
}

/** Why `task` is not running, from the read model's facts as of `now`. */
export async function whyOfTask(reads: ReadModel, task: TaskView | TaskDetail, now: Date): Promise<Why> {
  // a waiting task's parents as its page lists them (read again when given a plain TaskView)
  const parents = task.status === 'waiting' ? ('parents' in task ? task.parents : ((await reads.getTask(task.token))?.parents ?? [])) : [];
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
      concurrencyKey: task.concurrencyKey,
      startedAt: task.startedAt,
      finishedAt: task.finishedAt,
      workerId: task.workerId,
    },
    parents: { left: task.parentsLeft, total: task.parentCount, links: parents },
    suspension: task.suspended ? await suspensionOf(reads, task, task.suspended) : null,
  };
  if (task.status !== 'pending') {
    const idle: WhyQueueFacts = {
      name: task.queue,
      paused: false,
      concurrencyLimit: null,
      perKeyLimit: null,
      rate: null,
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
    now,
    task.concurrencyKey,
  );
  // the key's running tasks with a live lease, as the claim counts them (rule under_key_limit)
  const keyed = task.concurrencyKey !== null && queue.perKeyLimit !== null;
  const keyHolders = keyed ? (await holding(reads, task.queue, now, task.concurrencyKey!)).reverse() : [];
  const key = keyed
    ? { name: task.concurrencyKey!, held: keyHolders.length, holders: keyHolders.map((t) => ({ token: t.token, workerId: t.workerId })) }
    : null;
  return whyNotRunning({ ...facts, queue, batch: batchFacts(batch), key, workers: workerFacts(workers, handlers, task.queue) });
}
