// "Why isn't it running?": one reason for a pending task (or a queue with pending tasks), from facts a
// read gathered (why-read.ts). Pure: no I/O, no clock (`now` is a fact). It walks the claim rules of
// claim-rules.ts in their order, over a context built from the facts, and answers with the sentence of the
// first rule that stops the task; what no claim rule says is added here: in the place of the claimer's
// queue filter, whether a live worker serves the queue and knows the handler; for a queue as a whole,
// that nothing is due yet; for a task every rule lets through, whether a free worker is missing.
import { CLAIM_RULES, type RuleContext } from './claim-rules';
import { plural, whyIn, whyTime, type Why, type WhyFacts } from './why-facts';

export {
  WHY_REASONS,
  whyIn,
  whyTime,
  type Why,
  type WhyBatchFacts,
  type WhyFacts,
  type WhyQueueFacts,
  type WhyReason,
  type WhyTaskFacts,
  type WhyWorkerFacts,
} from './why-facts';

/** The rules' view of the facts: the queue's held tokens, the batch's active and failed stages. */
function ruleContext(f: WhyFacts): RuleContext {
  const { task: t, queue: q, batch: b } = f;
  const min = (xs: number[]) => (xs.length ? Math.min(...xs) : null);
  return {
    now: f.now,
    task: t,
    queue: { paused: q.paused, limit: q.concurrencyLimit, held: q.held },
    only: null,
    batch: b && {
      status: b.status,
      onFailure: b.onFailure,
      maxParallel: b.maxParallel,
      activeStage: min(b.stages.filter((s) => s.unfinished > 0).map((s) => s.stage)),
      failedStage: min(b.stages.filter((s) => s.dead > 0).map((s) => s.stage)),
      running: b.stages.reduce((n, s) => n + s.running, 0),
    },
    key:
      t?.concurrencyKey != null && q.perKeyLimit !== null ? { name: t.concurrencyKey, limit: q.perKeyLimit, held: f.key?.held ?? 0 } : null,
    rate: q.rate,
  };
}

/** A queue as a whole with nothing ready: when its next task is due. */
function nothingReady(f: WhyFacts): Why | null {
  const { now, queue: q } = f;
  if (q.ready > 0 || !q.nextRunAt) return null;
  const reason = q.retrying > 0 && q.scheduled === 0 ? 'retrying' : 'scheduled';
  const what =
    reason === 'retrying'
      ? `${plural(q.retrying, 'task')} retrying after backoff`
      : `${plural(q.scheduled + q.retrying, 'task')} scheduled`;
  const text = `Nothing ready: ${what}, next at ${whyTime(q.nextRunAt, now)} (${whyIn(q.nextRunAt, now)})`;
  return { reason, detail: { runAt: q.nextRunAt.toISOString(), scheduled: q.scheduled, retrying: q.retrying }, text };
}

/** The reason a task (or, with `task: null`, a queue's ready work) is not running now. */
export function whyNotRunning(f: WhyFacts): Why {
  const { task: t, queue: q, workers: w } = f;
  if (!t) {
    const later = nothingReady(f);
    if (later) return later;
  }
  const c = ruleContext(f);
  for (const rule of CLAIM_RULES) {
    if (rule.of === 'claimer') {
      // who may claim it: some live worker that serves the queue, and (handler tasks) knows the handler
      if (w.live === 0) return rule.why(c, f);
      if (t && t.kind === 'handler' && w.handlers && !w.handlers.includes(t.command)) {
        return {
          reason: 'no_worker',
          detail: { queue: q.name, handler: t.command, liveWorkers: w.live },
          text: `No worker has registered handler ${t.command}`,
        };
      }
      continue;
    }
    if (rule.of === 'task' && !t) continue;
    if (!rule.holds(c)) return rule.why(c, f);
  }

  // every rule lets it through: only a free worker is missing
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
