// The facts "why isn't it running?" judges (gathered by a read, lib/engine/why-read.ts), its answer, and
// the wording helpers its sentences share: kept apart from why.ts so that the claim rules
// (claim-rules.ts), which write the sentence for each rule, and why.ts, which walks those rules, can both
// use them without importing each other.
import type { BatchStatus, EventMatch, OnFailure, Suspension, TaskKind, TaskStatus } from './types';

export const WHY_REASONS = [
  'ready',
  'workers_busy',
  'scheduled',
  'retrying',
  'paused',
  'limit_full',
  'stage_wait',
  'no_worker',
  'not_pending',
  'key_full',
  'rate_limited',
  'waiting',
  'sleeping',
  'waiting_event',
] as const;
export type WhyReason = (typeof WHY_REASONS)[number];

export interface WhyTaskFacts {
  status: TaskStatus;
  queue: string;
  kind: TaskKind;
  command: string;
  runAfter: Date;
  /** attempts already made: a future run-at after one is a backoff */
  attempts: number;
  maxAttempts: number;
  batchId: number | null;
  stage: number | null;
  /** null: no concurrency key */
  concurrencyKey: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** the worker that runs it, or that claimed it ahead (a claimed task); absent: not known */
  workerId?: string | null;
}

export interface WhyQueueFacts {
  name: string;
  paused: boolean;
  concurrencyLimit: number | null;
  /** tokens held now as the claim counts them: a limited queue's running tasks with a live lease, token or not */
  held: number;
  /** who holds them (task token, worker), oldest first */
  holders: { token: string | null; workerId: string | null }[];
  /** running tasks of each concurrency key, at most (null: none) */
  perKeyLimit: number | null;
  /** the rate window now, as the claim counts it (null: no rate limit); per key: the task's key's window */
  rate: { limit: number; periodSeconds: number; perKey: boolean; started: number; nextAt: Date | null } | null;
  /** the newest change that paused the queue, while it is paused */
  pausedBy: { by: string; at: Date } | null;
  /** pending split; for a queue's own answer (ready: due now) */
  ready: number;
  scheduled: number;
  retrying: number;
  /** earliest run-at among scheduled and retrying tasks */
  nextRunAt: Date | null;
}

export interface WhyBatchFacts {
  id: number;
  status: BatchStatus;
  onFailure: OnFailure;
  maxParallel: number | null;
  /** per stage: unfinished (pending + running), dead and running counts */
  stages: { stage: number; unfinished: number; dead: number; running: number }[];
}

export interface WhyWorkerFacts {
  /** workers heartbeating in state running that claim from the queue (all queues, or it among theirs) */
  live: number;
  /** of those, running a task now */
  busy: number;
  /** live workers that claim only from other queues (`--queues`); absent: 0 */
  elsewhere?: number;
  /** handler names some worker process registered; null when unknown (not checked) */
  handlers: readonly string[] | null;
}

export interface WhyFacts {
  now: Date;
  /** null: the answer for the queue as a whole */
  task: WhyTaskFacts | null;
  queue: WhyQueueFacts;
  batch: WhyBatchFacts | null;
  /** the task's key under a perKeyLimit: running tasks of it with a live lease, and who runs them (oldest first) */
  key?: { name: string; held: number; holders: { token: string | null; workerId: string | null }[] } | null;
  /** a waiting task's parents (TaskDetail.parents) and how many are not yet done (TaskView.parentsLeft) */
  parents?: { left: number; total: number; links: { token: string; nodeId: string | null; status: TaskStatus }[] } | null;
  /**
   * a waiting task its durable handler suspended: on what (the step's name), until when (a sleep's end, an event
   * wait's timeout; null: none), and the event it waits for
   */
  suspension?: { kind: Suspension; step: string; until: Date | null; event: string | null; match: EventMatch | null } | null;
  workers: WhyWorkerFacts;
}

export interface Why {
  reason: WhyReason;
  detail: Record<string, unknown>;
  /** the one human sentence the dashboard shows */
  text: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `10:02:07 UTC` when on the same UTC day as `now`, else `2026-11-24 10:02 UTC` */
export function whyTime(t: Date, now: Date): string {
  const hm = `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}`;
  if (t.toISOString().slice(0, 10) === now.toISOString().slice(0, 10)) return `${hm}:${pad(t.getUTCSeconds())} UTC`;
  return `${t.toISOString().slice(0, 10)} ${hm} UTC`;
}

/** `in 5m 3s`, `in 2h 4m`, `now` */
export function whyIn(t: Date, now: Date): string {
  const s = Math.round((t.getTime() - now.getTime()) / 1000);
  if (s <= 0) return 'now';
  if (s < 60) return `in ${s}s`;
  if (s < 3600) return `in ${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `in ${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `in ${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
