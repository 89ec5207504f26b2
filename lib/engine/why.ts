// "Why isn't it running?": one reason for a pending task (or a queue with pending tasks), from facts a
// read gathered. Pure: no I/O, no clock (`now` is a fact). The order of the checks is the order of the
// claim rules (claim-policy.ts verdicts): due first, then who may claim it (a live worker serving the
// queue and the handler), the queue's pause, its limit, the batch's stage rules; a task every rule lets
// through waits only for a free worker.
import type { BatchStatus, OnFailure, TaskKind, TaskStatus } from './types';

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
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface WhyQueueFacts {
  name: string;
  paused: boolean;
  concurrencyLimit: number | null;
  /** tokens held now (granted tokens of a limited queue) */
  held: number;
  /** who holds them */
  holders: { token: string | null; workerId: string | null }[];
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function holdersText(holders: WhyQueueFacts['holders']): string {
  const shown = holders.slice(0, 3).map((h) => `${h.token ? h.token.slice(0, 8) : '?'}${h.workerId ? ` on ${h.workerId}` : ''}`);
  if (holders.length > 3) shown.push(`${holders.length - 3} more`);
  return shown.join(', ');
}

/** The reason a task (or, with `task: null`, a queue's ready work) is not running now. */
export function whyNotRunning(f: WhyFacts): Why {
  const { now, task: t, queue: q, workers: w } = f;

  // 1. not pending: say its state
  if (t && t.status !== 'pending') {
    const at = t.status === 'running' ? t.startedAt : t.finishedAt;
    const text =
      t.status === 'running'
        ? `Running${at ? ` since ${whyTime(at, now)}` : ''}`
        : `Not waiting: the task is ${t.status}${at ? ` (${whyTime(at, now)})` : ''}`;
    return { reason: 'not_pending', detail: { status: t.status, at: at?.toISOString() ?? null }, text };
  }

  // 2. due: a future run-at (scheduled, or a backoff after a failed attempt)
  if (t && t.runAfter.getTime() > now.getTime()) {
    const runAt = t.runAfter.toISOString();
    if (t.attempts > 0) {
      const next = `attempt ${t.attempts + 1} of ${t.maxAttempts} next`;
      const text = `Retrying after backoff until ${whyTime(t.runAfter, now)} (${whyIn(t.runAfter, now)}; ${next})`;
      return { reason: 'retrying', detail: { runAt, attempts: t.attempts, maxAttempts: t.maxAttempts }, text };
    }
    return { reason: 'scheduled', detail: { runAt }, text: `Scheduled for ${whyTime(t.runAfter, now)} (${whyIn(t.runAfter, now)})` };
  }
  if (!t && q.ready === 0 && q.nextRunAt) {
    const reason = q.retrying > 0 && q.scheduled === 0 ? 'retrying' : 'scheduled';
    const what =
      reason === 'retrying'
        ? `${plural(q.retrying, 'task')} retrying after backoff`
        : `${plural(q.scheduled + q.retrying, 'task')} scheduled`;
    const text = `Nothing ready: ${what}, next at ${whyTime(q.nextRunAt, now)} (${whyIn(q.nextRunAt, now)})`;
    return { reason, detail: { runAt: q.nextRunAt.toISOString(), scheduled: q.scheduled, retrying: q.retrying }, text };
  }

  // 3. a claimer: some live worker that serves the queue, and (handler tasks) knows the handler
  if (w.live === 0) {
    const elsewhere = w.elsewhere ?? 0;
    const others = `${plural(elsewhere, 'live worker')} claim${elsewhere === 1 ? 's' : ''} only from other queues`;
    const text = elsewhere ? `No live worker serves queue ${q.name} (${others})` : `No live worker serves queue ${q.name}`;
    return { reason: 'no_worker', detail: { queue: q.name, liveWorkers: 0, elsewhere }, text };
  }
  if (t && t.kind === 'handler' && w.handlers && !w.handlers.includes(t.command)) {
    return {
      reason: 'no_worker',
      detail: { queue: q.name, handler: t.command, liveWorkers: w.live },
      text: `No worker has registered handler ${t.command}`,
    };
  }

  // 4. the queue's pause
  if (q.paused) {
    const by = q.pausedBy;
    const text = by ? `Queue paused by ${by.by} at ${whyTime(by.at, now)}` : 'Queue paused';
    return { reason: 'paused', detail: { queue: q.name, by: by?.by ?? null, at: by?.at.toISOString() ?? null }, text };
  }

  // 5. the queue's concurrency limit
  if (q.concurrencyLimit !== null && q.held >= q.concurrencyLimit) {
    const held = holdersText(q.holders);
    return {
      reason: 'limit_full',
      detail: { queue: q.name, held: q.held, limit: q.concurrencyLimit, holders: q.holders },
      text: `Concurrency limit full: ${q.held} of ${q.concurrencyLimit} tokens${held ? `, held by ${held}` : ''}`,
    };
  }

  // 6. batch: live, the active stage, not after a failed stage (abort), under maxParallel
  if (t && t.batchId !== null) {
    const b = f.batch;
    const stage = t.stage ?? 0;
    const base = { batchId: t.batchId, stage };
    if (!b || !['open', 'released', 'aborted'].includes(b.status)) {
      const status = b?.status ?? 'missing';
      return {
        reason: 'stage_wait',
        detail: { ...base, kind: 'closed', status },
        text: `Batch ${t.batchId} is ${status}: it starts nothing`,
      };
    }
    const active = b.stages.filter((s) => s.unfinished > 0).map((s) => s.stage);
    const activeStage = active.length ? Math.min(...active) : null;
    const failed = b.stages.filter((s) => s.dead > 0).map((s) => s.stage);
    const failedStage = failed.length ? Math.min(...failed) : null;
    if (activeStage !== null && stage !== activeStage) {
      const left = b.stages.filter((s) => s.stage < stage).reduce((n, s) => n + s.unfinished, 0);
      return {
        reason: 'stage_wait',
        detail: { ...base, kind: 'stage', waitingFor: activeStage, left },
        text: `Batch ${t.batchId} stage ${stage} waits for stage ${activeStage} (${plural(left, 'task')} left)`,
      };
    }
    if (b.onFailure === 'abort' && failedStage !== null && stage > failedStage) {
      return {
        reason: 'stage_wait',
        detail: { ...base, kind: 'aborted', failedStage },
        text: `Batch ${t.batchId} aborted: stage ${failedStage} has a dead task, stage ${stage} will not run`,
      };
    }
    const running = b.stages.reduce((n, s) => n + s.running, 0);
    if (b.maxParallel !== null && running >= b.maxParallel) {
      return {
        reason: 'stage_wait',
        detail: { ...base, kind: 'batch_full', running, maxParallel: b.maxParallel },
        text: `Batch ${t.batchId} at its cap: ${running} of ${b.maxParallel} running`,
      };
    }
  }

  // 7. eligible: only a free worker is missing
  if (w.busy >= w.live) {
    return {
      reason: 'workers_busy',
      detail: { busy: w.busy, live: w.live },
      text: `Waiting for a free worker: ${w.busy} of ${w.live} busy`,
    };
  }
  const readyText = t
    ? 'Ready: a free worker should start it within a poll'
    : `Ready: ${plural(q.ready, 'task')} waiting for a free worker`;
  return {
    reason: 'ready',
    detail: { busy: w.busy, live: w.live, ready: q.ready },
    text: `${readyText} (${w.busy} of ${w.live} workers busy)`,
  };
}
