// The Tasks page's tab counts: per state from the kept counts (QueueCounts), pending split into ready,
// scheduled and retrying (ReadModel.pendingBreakdown) — never a count over Tasks.
import type { ReadModel } from '../engine/ports';

export interface TaskCountsJson {
  /** the queue the counts are of; null: every queue */
  queue: string | null;
  all: number;
  /** waiting: for parents (types/flows.ts), or suspended by a durable handler (types/durable.ts) */
  waiting: number;
  /** of waiting: suspended on a sleep, on an event */
  sleeping: number;
  event: number;
  pending: number;
  ready: number;
  scheduled: number;
  retrying: number;
  /** claimed ahead by a pool, not started yet */
  claimed: number;
  running: number;
  succeeded: number;
  dead: number;
  cancelled: number;
  /** every queue with tasks (for the queue filter) */
  queues: string[];
}

export async function taskCounts(
  reads: Pick<ReadModel, 'countsByQueue' | 'pendingBreakdown' | 'suspendedCounts'>,
  queue?: string,
): Promise<TaskCountsJson> {
  // one after the other: a fresh SQL Server pool logs in once
  const counts = await reads.countsByQueue();
  const breakdown = await reads.pendingBreakdown();
  const suspended = await reads.suspendedCounts();
  const out: TaskCountsJson = {
    queue: queue ?? null,
    all: 0,
    waiting: 0,
    sleeping: 0,
    event: 0,
    pending: 0,
    ready: 0,
    scheduled: 0,
    retrying: 0,
    claimed: 0,
    running: 0,
    succeeded: 0,
    dead: 0,
    cancelled: 0,
    queues: [],
  };
  for (const c of counts) {
    if (c.waiting + c.pending + c.claimed + c.running + c.succeeded + c.dead + c.cancelled > 0) out.queues.push(c.queue);
    if (queue !== undefined && c.queue !== queue) continue;
    out.waiting += c.waiting;
    out.pending += c.pending;
    out.claimed += c.claimed;
    out.running += c.running;
    out.succeeded += c.succeeded;
    out.dead += c.dead;
    out.cancelled += c.cancelled;
  }
  for (const b of breakdown) {
    if (queue !== undefined && b.queue !== queue) continue;
    out.ready += b.ready;
    out.scheduled += b.scheduled;
    out.retrying += b.retrying;
  }
  for (const s of suspended) {
    if (queue !== undefined && s.queue !== queue) continue;
    out.sleeping += s.sleeping;
    out.event += s.waitingEvent;
  }
  out.all = out.waiting + out.pending + out.claimed + out.running + out.succeeded + out.dead + out.cancelled;
  out.queues.sort();
  return out;
}
