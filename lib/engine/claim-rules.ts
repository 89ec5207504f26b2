// THE CLAIM RULES, each written once, by name, in the order they are checked: a pending task is claimable
// when every rule lets it through; the first rule that stops it is its verdict. Derived from this list:
//  - the pure model (claim-policy.ts: verdicts, lanes, allowedClaims), which the contract suite holds each
//    store to (db/contract/claim-model.ts);
//  - "why isn't it running?" (why.ts), which walks the same rules over the facts a read gathered and
//    answers with the rule's sentence (`why` below), adding only what no claim rule says (who may claim:
//    a live worker, its handler; whether a free worker is missing);
//  - each dialect's claim SQL, composed of one fragment per rule (CLAIM_RULE_SQL of db/<dialect>/sql/claim.ts:
//    Record<ClaimRuleName, string>); a test fails when a dialect lacks a fragment or its claim SQL does not
//    contain it (db/<dialect>/claim-rules.test.ts).
// Adding a rule: a name, verdict, predicate and why-answer here; one fragment per dialect, used in its claim SQL.
// Not claim rules: attempts left and a free dedup key are checked where a task becomes pending (enqueue,
// retry), never by the claim.
import { plural, whyIn, whyTime, type Why, type WhyFacts, type WhyQueueFacts, type WhyReason } from './why-facts';
import type { BatchStatus, OnFailure, TaskStatus } from './types';

/** Why a task cannot be claimed now (or `eligible`): each rule's code. */
export type Verdict =
  | 'eligible'
  | 'not_pending'
  | 'not_due'
  | 'filtered'
  | 'paused'
  | 'no_token'
  | 'no_batch'
  | 'batch_closed'
  | 'stage_waits'
  | 'batch_aborted'
  | 'batch_full'
  | 'key_full'
  | 'rate_limited';

/** Batches whose tasks may still start: a cancelled or completed batch starts nothing. */
export const LIVE_BATCH: readonly BatchStatus[] = ['open', 'released', 'aborted'];

/** What the rules look at: one task (null: a queue's ready work as a whole), its queue and its batch. */
export interface RuleContext {
  now: Date;
  task: {
    status: TaskStatus;
    queue: string;
    runAfter: Date;
    batchId: number | null;
    stage: number | null;
    /** null: no concurrency key */
    concurrencyKey?: string | null;
  } | null;
  queue: {
    paused: boolean;
    /** null = unlimited */
    limit: number | null;
    /** running tasks of the queue with a live lease, token or not: what a limit counts */
    held: number;
  };
  /** the claimer's queue filter; null = every queue */
  only: ReadonlySet<string> | null;
  /** the task's batch; null: unbatched, or (the task names a batch) no such batch */
  batch: {
    status: BatchStatus;
    onFailure: OnFailure;
    maxParallel: number | null;
    /** lowest stage with a pending or running task: the only stage that may start tasks */
    activeStage: number | null;
    /** lowest stage with a dead task */
    failedStage: number | null;
    /** running tasks of the batch, live lease or not (an expired lease still runs until it is rescued) */
    running: number;
  } | null;
  /**
   * the task's concurrency key under its queue's perKeyLimit (null: no key, no per-key limit, or the queue as
   * a whole): `held` = running tasks of the key with a live lease, as the queue limit counts
   */
  key: { name: string; limit: number; held: number } | null;
  /**
   * the queue's rate limit (null: none): `started` = attempts started in the last `periodSeconds` — of the
   * task's key when the rate is per key (the tasks with no key share one window), else of the queue
   */
  rate: { limit: number; periodSeconds: number; perKey: boolean; started: number; nextAt: Date | null } | null;
}

export interface ClaimRule {
  name: string;
  verdict: Exclude<Verdict, 'eligible'>;
  /**
   * What it judges: `task` rules are skipped for a queue as a whole; the `claimer` rule depends on who
   * claims, so "why" (no claimer in view) answers in its place whether any live worker would.
   */
  of: 'task' | 'queue' | 'claimer';
  /** true: the rule lets the task through */
  holds(c: RuleContext): boolean;
  /** "why"'s answer when the rule stops the task */
  why(c: RuleContext, f: WhyFacts): Why;
}

const stageOf = (c: RuleContext) => c.task?.stage ?? 0;
/** a batched task's batch rules: an unbatched task (or a queue as a whole) passes them */
const batched = (c: RuleContext) => c.task !== null && c.task.batchId !== null;
const batchBase = (c: RuleContext) => ({ batchId: c.task!.batchId, stage: stageOf(c) });

function holdersText(holders: WhyQueueFacts['holders']): string {
  const shown = holders.slice(0, 3).map((h) => `${h.token ? h.token.slice(0, 8) : '?'}${h.workerId ? ` on ${h.workerId}` : ''}`);
  if (holders.length > 3) shown.push(`${holders.length - 3} more`);
  return shown.join(', ');
}

/** a batch that is missing or not live starts nothing */
function closedWhy(c: RuleContext): Why {
  const status = c.batch?.status ?? 'missing';
  const text = `Batch ${c.task!.batchId} is ${status}: it starts nothing`;
  return { reason: 'stage_wait', detail: { ...batchBase(c), kind: 'closed', status }, text };
}

/**
 * a waiting task: `Waiting for 2 of 3 parents: load-a (running), load-b (pending)` — each parent by its node id, or
 * its whole token (time-ordered tokens made together share their first characters, and their last on SQL Server)
 */
function waitingWhy(f: WhyFacts): Why {
  const p = f.parents ?? { left: 0, total: 0, links: [] };
  const open = p.links.filter((l) => l.status !== 'succeeded');
  const shown = open.slice(0, 5).map((l) => `${l.nodeId ?? l.token} (${l.status})`);
  if (open.length > 5) shown.push(`${open.length - 5} more`);
  const stuck = open.filter((l) => l.status === 'dead' || l.status === 'cancelled').length;
  const text =
    `Waiting for ${p.left} of ${plural(p.total, 'parent')}${shown.length ? `: ${shown.join(', ')}` : ''}` +
    (stuck > 0 ? ` — ${plural(stuck, 'parent')} failed: retry it, or cancel this task` : '');
  const parents = open.slice(0, 20).map((l) => ({ token: l.token, nodeId: l.nodeId, status: l.status }));
  return { reason: 'waiting', detail: { left: p.left, total: p.total, parents }, text };
}

/**
 * a suspended task (types/durable.ts): `Sleeping until 12:03:04 UTC (in 5m 3s; step cool-down)`, or `Waiting for
 * event order.paid matching {"orderId":42}, times out at … (step paid)`
 */
function suspendedWhy(c: RuleContext, s: NonNullable<WhyFacts['suspension']>): Why {
  const until = s.until ? `${whyTime(s.until, c.now)} (${whyIn(s.until, c.now)})` : null;
  const detail = { step: s.step, until: s.until?.toISOString() ?? null, event: s.event, match: s.match };
  if (s.kind === 'sleep') {
    return { reason: 'sleeping', detail, text: `Sleeping until ${until ?? 'an operator wakes it'} (step ${s.step})` };
  }
  const match = s.match && Object.keys(s.match).length ? ` matching ${JSON.stringify(s.match)}` : '';
  const text = `Waiting for event ${s.event}${match}, ${until ? `times out at ${until}` : 'no timeout'} (step ${s.step})`;
  return { reason: 'waiting_event', detail, text };
}

export const CLAIM_RULES = [
  {
    name: 'pending',
    verdict: 'not_pending',
    of: 'task',
    holds: (c) => c.task!.status === 'pending',
    why: (c, f) => {
      const t = f.task!;
      if (t.status === 'waiting') return f.suspension ? suspendedWhy(c, f.suspension) : waitingWhy(f);
      if (t.status === 'claimed') {
        const by = t.workerId ?? 'a worker';
        return {
          reason: 'not_pending',
          detail: { status: t.status, at: null, workerId: t.workerId ?? null },
          text:
            `Claimed by ${by}, starting: claimed ahead by its pool, it starts when one of that pool's slots frees ` +
            '(or goes back to pending)',
        };
      }
      const at = t.status === 'running' ? t.startedAt : t.finishedAt;
      const text =
        t.status === 'running'
          ? `Running${at ? ` since ${whyTime(at, c.now)}` : ''}`
          : `Not waiting: the task is ${t.status}${at ? ` (${whyTime(at, c.now)})` : ''}`;
      return { reason: 'not_pending', detail: { status: t.status, at: at?.toISOString() ?? null }, text };
    },
  },
  {
    name: 'due',
    verdict: 'not_due',
    of: 'task',
    holds: (c) => c.task!.runAfter.getTime() <= c.now.getTime(),
    // scheduled, or a backoff after a failed attempt
    why: (c, f) => {
      const t = f.task!;
      const now = c.now;
      const runAt = t.runAfter.toISOString();
      if (t.attempts > 0) {
        const next = `attempt ${t.attempts + 1} of ${t.maxAttempts} next`;
        const text = `Retrying after backoff until ${whyTime(t.runAfter, now)} (${whyIn(t.runAfter, now)}; ${next})`;
        return { reason: 'retrying', detail: { runAt, attempts: t.attempts, maxAttempts: t.maxAttempts }, text };
      }
      return { reason: 'scheduled', detail: { runAt }, text: `Scheduled for ${whyTime(t.runAfter, now)} (${whyIn(t.runAfter, now)})` };
    },
  },
  {
    name: 'in_queue_filter',
    verdict: 'filtered',
    of: 'claimer',
    holds: (c) => c.only === null || c.only.has(c.task!.queue),
    // for "why": no live worker serves the queue (why.ts asks that in this rule's place)
    why: (_c, f) => {
      const q = f.queue;
      const elsewhere = f.workers.elsewhere ?? 0;
      const others = `${plural(elsewhere, 'live worker')} claim${elsewhere === 1 ? 's' : ''} only from other queues`;
      const text = elsewhere ? `No live worker serves queue ${q.name} (${others})` : `No live worker serves queue ${q.name}`;
      return { reason: 'no_worker', detail: { queue: q.name, liveWorkers: 0, elsewhere }, text };
    },
  },
  {
    name: 'queue_not_paused',
    verdict: 'paused',
    of: 'queue',
    holds: (c) => !c.queue.paused,
    why: (c, f) => {
      const by = f.queue.pausedBy;
      const text = by ? `Queue paused by ${by.by} at ${whyTime(by.at, c.now)}` : 'Queue paused';
      return { reason: 'paused', detail: { queue: f.queue.name, by: by?.by ?? null, at: by?.at.toISOString() ?? null }, text };
    },
  },
  {
    name: 'under_queue_limit',
    verdict: 'no_token',
    of: 'queue',
    holds: (c) => c.queue.limit === null || c.queue.held < c.queue.limit,
    why: (_c, f) => {
      const q = f.queue;
      const held = holdersText(q.holders);
      return {
        reason: 'limit_full',
        detail: { queue: q.name, held: q.held, limit: q.concurrencyLimit, holders: q.holders },
        text: `Concurrency limit full: ${q.held} of ${q.concurrencyLimit} tokens${held ? `, held by ${held}` : ''}`,
      };
    },
  },
  {
    name: 'batch_exists',
    verdict: 'no_batch',
    of: 'task',
    holds: (c) => !batched(c) || c.batch !== null,
    why: closedWhy,
  },
  {
    name: 'batch_live',
    verdict: 'batch_closed',
    of: 'task',
    holds: (c) => !batched(c) || LIVE_BATCH.includes(c.batch!.status),
    why: closedWhy,
  },
  {
    name: 'stage_active',
    verdict: 'stage_waits',
    of: 'task',
    holds: (c) => !batched(c) || c.batch!.activeStage === null || stageOf(c) === c.batch!.activeStage,
    why: (c, f) => {
      const stage = stageOf(c);
      const waitingFor = c.batch!.activeStage;
      const left = (f.batch?.stages ?? []).filter((s) => s.stage < stage).reduce((n, s) => n + s.unfinished, 0);
      return {
        reason: 'stage_wait',
        detail: { ...batchBase(c), kind: 'stage', waitingFor, left },
        text: `Batch ${c.task!.batchId} stage ${stage} waits for stage ${waitingFor} (${plural(left, 'task')} left)`,
      };
    },
  },
  {
    name: 'not_after_failed_stage',
    verdict: 'batch_aborted',
    of: 'task',
    holds: (c) => {
      const b = c.batch;
      return !batched(c) || !(b!.onFailure === 'abort' && b!.failedStage !== null && stageOf(c) > b!.failedStage);
    },
    why: (c) => {
      const { failedStage } = c.batch!;
      return {
        reason: 'stage_wait',
        detail: { ...batchBase(c), kind: 'aborted', failedStage },
        text: `Batch ${c.task!.batchId} aborted: stage ${failedStage} has a dead task, stage ${stageOf(c)} will not run`,
      };
    },
  },
  {
    name: 'under_batch_max_parallel',
    verdict: 'batch_full',
    of: 'task',
    holds: (c) => !batched(c) || c.batch!.maxParallel === null || c.batch!.running < c.batch!.maxParallel,
    why: (c) => {
      const { running, maxParallel } = c.batch!;
      return {
        reason: 'stage_wait',
        detail: { ...batchBase(c), kind: 'batch_full', running, maxParallel },
        text: `Batch ${c.task!.batchId} at its cap: ${running} of ${maxParallel} running`,
      };
    },
  },
  {
    name: 'under_key_limit',
    verdict: 'key_full',
    of: 'task',
    holds: (c) => c.key === null || c.key.held < c.key.limit,
    why: (c, f) => {
      const { name, held, limit } = c.key!;
      const holders = f.key ? holdersText(f.key.holders) : '';
      return {
        reason: 'key_full',
        detail: { queue: c.task!.queue, key: name, held, limit, holders: f.key?.holders ?? [] },
        text: `Key ${name}: ${held} of ${limit} running${holders ? ` (token ${holders})` : ''}`,
      };
    },
  },
  {
    name: 'under_rate_limit',
    verdict: 'rate_limited',
    of: 'queue',
    holds: (c) => c.rate === null || c.rate.started < c.rate.limit,
    why: (c) => {
      const { limit, periodSeconds, perKey, started, nextAt } = c.rate!;
      const key = perKey ? (c.task?.concurrencyKey ?? null) : null;
      const whose = perKey ? (key === null ? ' (tasks with no key)' : ` for key ${key}`) : '';
      const next = nextAt ? `; next start ${whyIn(nextAt, c.now)}` : '';
      return {
        reason: 'rate_limited',
        detail: { limit, periodSeconds, perKey, key, started, nextAt: nextAt?.toISOString() ?? null },
        text: `Rate limit${whose}: ${started} of ${limit} started in the last ${periodSeconds} s${next}`,
      };
    },
  },
] as const satisfies readonly ClaimRule[];

export type ClaimRuleName = (typeof CLAIM_RULES)[number]['name'];

/** The verdict on a task: the first rule that stops it, or `eligible`. */
export function firstFailing(c: RuleContext): (typeof CLAIM_RULES)[number] | null {
  for (const rule of CLAIM_RULES) if (!rule.holds(c)) return rule;
  return null;
}

/**
 * What "why" may answer for a task of each verdict (with no claimer's filter: "why" judges for any live
 * worker). An eligible task waits only for a worker; a filtered one is, for why, one no live worker serves.
 */
export const VERDICT_WHY: Record<Verdict, readonly WhyReason[]> = {
  eligible: ['ready', 'workers_busy'],
  not_pending: ['not_pending', 'waiting', 'sleeping', 'waiting_event'],
  not_due: ['scheduled', 'retrying'],
  filtered: ['no_worker'],
  paused: ['paused'],
  no_token: ['limit_full'],
  no_batch: ['stage_wait'],
  batch_closed: ['stage_wait'],
  stage_waits: ['stage_wait'],
  batch_aborted: ['stage_wait'],
  batch_full: ['stage_wait'],
  key_full: ['key_full'],
  rate_limited: ['rate_limited'],
};

/**
 * What a dialect's rule fragments lack against its claim SQL: a rule with no fragment, or a fragment the
 * claim SQL does not contain (each dialect's claim-rules.test.ts expects none).
 */
export function fragmentGaps(fragments: Partial<Record<string, string>>, claimSql: string): string[] {
  const gaps: string[] = [];
  for (const { name } of CLAIM_RULES) {
    const f = fragments[name];
    if (!f) gaps.push(`${name}: no fragment`);
    else if (!claimSql.includes(f)) gaps.push(`${name}: not in the claim SQL: ${f}`);
  }
  return gaps;
}
