// The randomized claim walk's view of a store (claim-model.ts): the state the claim policy model needs, read
// back through the read model only, and a readable account of it for a failure message.
import { verdicts, type ClaimSnapshot, type PolicyTask } from '../../lib/engine/claim-policy';
import { rateText } from '../../lib/engine/keys';
import type { Store } from '../../lib/engine/ports';
import type { BatchView, TaskView } from '../../lib/engine/types';

/**
 * The state the model needs, read back through the read model; `tokens`: each task's token by id, `views`: each
 * task as listed.
 */
export async function snapshot(
  store: Store,
  only: string[] | null,
  now: Date,
  tokens: Map<number, string>,
  views: Map<number, TaskView>,
): Promise<ClaimSnapshot> {
  const tasks: PolicyTask[] = [];
  for (let cursor: number | undefined; ; ) {
    const page = await store.reads.listTasks({ cursor, limit: 200 });
    for (const t of page.items) {
      tokens.set(t.id, t.token);
      views.set(t.id, t);
      tasks.push({
        id: t.id,
        queue: t.queue,
        status: t.status,
        priority: t.priority,
        runAfter: t.runAfter,
        batchId: t.batchId,
        stage: t.stage,
        leaseUntil: t.leaseUntil,
        concurrencyKey: t.concurrencyKey,
      });
    }
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  const batches: BatchView[] = [];
  for (let cursor: number | undefined; ; ) {
    const page = await store.reads.listBatches({ cursor, limit: 200 });
    batches.push(...page.items);
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  const queues = (await store.reads.listQueues()).map((q) => ({
    name: q.name,
    limit: q.concurrencyLimit,
    paused: q.paused,
    perKeyLimit: q.perKeyLimit,
    rateLimit: q.rateLimit,
  }));
  // every attempt start, with its task's key: what a rate window counts
  const keyOf = new Map(tasks.map((t) => [tokens.get(t.id)!, t.concurrencyKey ?? null]));
  const starts: { queue: string; key: string | null; at: Date }[] = [];
  for (let cursor: number | undefined; ; ) {
    const page = await store.reads.listAttempts({ cursor, limit: 200 });
    for (const a of page.items) starts.push({ queue: a.queue, key: keyOf.get(a.token) ?? null, at: a.startedAt });
    if (page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  return {
    tasks,
    queues,
    only,
    now,
    starts,
    batches: batches.map((b) => ({ id: b.id, status: b.status, maxParallel: b.maxParallel, onFailure: b.onFailure })),
  };
}

/** A readable account of the snapshot for a failure message. */
export function describeSnapshot(s: ClaimSnapshot): string {
  const v = verdicts(s);
  const now = s.now.getTime();
  const live = s.tasks.filter((t) => t.status === 'waiting' || t.status === 'pending' || t.status === 'running' || t.batchId !== null);
  const rows = live.map(
    (t) =>
      `  #${t.id} ${t.status} q=${t.queue} p=${t.priority} due=${t.runAfter.getTime() <= now}` +
      (t.batchId === null ? '' : ` batch=${t.batchId}/${t.stage}`) +
      (t.concurrencyKey == null ? '' : ` key=${t.concurrencyKey}`) +
      (t.leaseUntil ? ` lease=${t.leaseUntil.getTime() >= now ? 'live' : 'expired'}` : '') +
      ` → ${v.get(t.id)}`,
  );
  return [
    `queues: ${s.queues
      .map(
        (q) =>
          `${q.name}(limit=${q.limit}${q.paused ? ', paused' : ''}` +
          `${q.perKeyLimit != null ? `, perKey=${q.perKeyLimit}` : ''}${q.rateLimit ? `, rate=${rateText(q.rateLimit)}` : ''})`,
      )
      .join(' ')}`,
    `starts: ${(s.starts ?? []).length}`,
    `batches: ${s.batches.map((b) => `${b.id}(${b.status}, max=${b.maxParallel}, ${b.onFailure})`).join(' ')}`,
    `filter: ${s.only ? s.only.join(',') : 'all'}`,
    ...rows,
  ].join('\n');
}
