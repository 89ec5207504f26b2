// The claim against the pure claim policy (lib/engine/claim-policy.ts), at random: a seeded walk
// builds state through the ports only (queues with limits and pauses, batches with stages, caps and
// failure policies, due and delayed tasks of several priorities), then, step after step, settles,
// rescues, cancels, retries and resizes at random and claims ONE task: the store's choice must be in
// the set the model allows, and the store may return nothing only when the model agrees. The model
// reads the same state back through the read model. A failure names its seed; replay one with
// CLAIM_MODEL_SEEDS=<seed>[,<seed>…].
//
// "Why isn't it running?" against the same rules (lib/engine/claim-rules.ts): on each state, before the
// claim, the store's why answer (the read path of the front door: getTask, then why-read.ts) for every task
// the claim may take and for a few others drawn at random must be one the model's verdict allows
// (VERDICT_WHY; judged for any worker, without the claimer's queue filter), and the task the claim took
// must have been ready or waiting only for a worker.
//
// Steps and time per seed: 80 steps in 60 s by default; a slow server gets fewer steps or more time from its
// suite (storeContract's `claimModel` option; CLAIM_MODEL_STEPS overrides the steps). A seed that runs out of
// time stops its store first (every later call through the walk's store is refused) and fails saying at
// which step, so nothing keeps claiming in the background into the next seed.
//
// Throttle is in the walk too, drawn apart from its other moves (throttleRng): tasks with concurrency keys (given,
// or in the payload of a queue with keyFrom), queues with per-key limits and rate limits (queue-wide or per key),
// changed now and then; the snapshot carries each task's key, each queue's per-key and rate limits, and every
// attempt start (listAttempts), which the model's rate windows count.
//
// Durable handlers' suspensions are in the walk too (durRng): a settlement now and then suspends its task on a
// sleep or an event wait (due already, in an hour, or never), moves wake the due ones and send events, so the walk
// holds suspended tasks — waiting, never claimable before their time or event, a batch's stage kept active by
// them — and "why" of each must say `sleeping` or `waiting_event`.
//
// Dependencies are in the walk too, drawn apart as well (depRng; claim-model-deps.ts): unbatched tasks enqueued
// after 1 to 3 others with a failure policy each, so the walk holds waiting tasks — never claimable — that its
// moves release, cancel and re-arm; each state's edges are checked against the tasks' counters, "why" of a
// waiting task must say `waiting`, and a claimed task's parents must all be finished.
//
// The walk steers around nothing. Three gaps it found are closed and stay in its path: a limit set on an
// unlimited queue while tasks of it run (those tasks hold no token; the stores now count running tasks
// with a live lease, token or not), an operator retry of a cancelled task of a later stage of an
// aborted batch (refused now: `batch_aborted`), and a batch's head held back by its key's limit or rate
// window hiding the batch's next task (the batch lanes now leave such tasks out before their LIMIT).
import { describe, expect, it } from 'vitest';
import { allowedClaims, verdicts, type ClaimSnapshot } from '../../lib/engine/claim-policy';
import { VERDICT_WHY } from '../../lib/engine/claim-rules';
import type { Store } from '../../lib/engine/ports';
import type { ClaimedTask, Settlement, TaskView, WorkerSlot } from '../../lib/engine/types';
import type { Why } from '../../lib/engine/why';
import { whyOfTask } from '../../lib/engine/why-read';
import { checkClaimedParents, checkEdges, checkWaitingWhy, drawDependencies } from './claim-model-deps';
import { describeSnapshot, snapshot } from './claim-snapshot';
import { err, Harness, LONG_LEASE, sleep, useStore, type StoreFactory } from './harness';
import { prng, type Rng } from './prng';

const SEEDS = process.env.CLAIM_MODEL_SEEDS ? process.env.CLAIM_MODEL_SEEDS.split(',').map(Number) : [1, 2, 3, 5, 8, 13, 21, 34];
/** Steps per seed, the time a seed may take and the tasks drawn for "why" per step, unless the suite says otherwise. */
export const CLAIM_MODEL_DEFAULTS = { steps: 80, timeoutMs: 60_000, whyPerStep: 4 };

export interface ClaimModelOptions {
  /** steps per seed (CLAIM_MODEL_STEPS overrides it) */
  steps?: number;
  /** the time one seed may take, set-up included */
  timeoutMs?: number;
  /** tasks besides those the claim may take whose "why" is checked per step */
  whyPerStep?: number;
}

/** What is left for the walk once its test's time is up: stop this long before vitest would. */
const STOP_MARGIN_MS = 5_000;

/**
 * The store, refusing every call of any port once `signal` is aborted (a call already running finishes).
 * What a timed-out walk has left to do then fails at once instead of running on against the next test's store.
 */
export function stoppable(store: Store, signal: AbortSignal): Store {
  const ports = new Map<PropertyKey, unknown>();
  const guard = <T extends object>(port: T, name: string): T =>
    new Proxy(port, {
      get(target, key) {
        const v = Reflect.get(target, key) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (signal.aborted) throw new Error(`the store was stopped (${String(signal.reason)}): ${name}.${String(key)} refused`);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return new Proxy(store, {
    get(target, key) {
      const v = Reflect.get(target, key) as unknown;
      if (typeof v === 'function') return (v as (...a: unknown[]) => unknown).bind(target);
      if (v === null || typeof v !== 'object') return v;
      if (!ports.has(key)) ports.set(key, guard(v, String(key)));
      return ports.get(key);
    },
  });
}
const QUEUES = ['qa', 'qb', 'qc', 'qd'];
/** concurrency keys of the walk's tasks ('K' and 'k' apart: keys are binary-compared) */
const KEYS = ['k', 'K', 'acme', 'beta'];
/**
 * Rate periods: long enough that no start leaves a window during a walk, so the snapshot and the claim a few
 * milliseconds later agree on every window (windows that roll are the contract tests' part, throttle.ts).
 */
const RATE_PERIODS = [3600, 86_400];
const HOUR = 3_600_000;
/** a lease that has expired by the next snapshot (the walk sleeps past it) */
const SHORT_LEASE = 1;
/**
 * Times the store sets to its own "now" (a short lease's end, run-after of a retry or a rescue) are
 * left this far behind before the next snapshot, so the model and the store agree which side of
 * `now` they fall on; every other time in the walk is a second or more from now.
 */
const MARGIN = 10;

class Walk {
  readonly running = new Map<number, ClaimedTask>();
  readonly tokens: string[] = [];
  readonly batches: number[] = [];
  readonly slots: WorkerSlot[] = [];
  readonly limits = new Map<string, number | null>();
  claims = 0;
  empties = 0;
  /** "why" answers checked, by the model's verdict */
  readonly whyChecked = new Map<string, number>();
  /** the store's clock less ours, learnt from claims (a database server keeps its own time) */
  skew = 0;

  /** draws the tasks whose "why" is checked: apart from `rng`, so the walk's own moves stay as they were */
  readonly whyRng: Rng;
  /** draws keys and throttle (per-key limits, keyFrom, rate limits): apart from `rng`, for the same reason */
  readonly throttleRng: Rng;
  /** draws dependencies (claim-model-deps.ts): apart from `rng`, for the same reason */
  readonly depRng: Rng;
  /** draws durable handlers' suspensions, wake-ups and events: apart from `rng`, for the same reason */
  readonly durRng: Rng;
  /** settlements that suspended their task */
  suspended = 0;
  /**
   * draws claims ahead (a store that claims ahead: the task is `claimed`, holding what a running one holds) and
   * how a claimed task ends (started and settled, or given back): apart from `rng`, for the same reason
   */
  readonly aheadRng: Rng;
  /** claims made ahead */
  ahead = 0;
  /** waiting or pending tasks with parents whose edges were checked, and claims of a task with parents */
  edgesChecked = 0;
  claimedAfterParents = 0;

  constructor(
    readonly h: Harness,
    readonly rng: Rng,
    seed: number,
    readonly whyPerStep: number,
  ) {
    this.whyRng = prng(seed ^ 0x5eed);
    this.throttleRng = prng(seed ^ 0xf10c);
    this.depRng = prng(seed ^ 0xda9);
    this.durRng = prng(seed ^ 0xd0d0);
    this.aheadRng = prng(seed ^ 0xa4ead);
  }

  get store() {
    return this.h.store;
  }

  async enqueue(batchId: number | null, stage: number | null) {
    const r = this.rng;
    const runAt = new Date(Date.now() + (r.chance(0.15) ? HOUR + r.int(HOUR) : -1000 - r.int(HOUR)));
    const input = {
      queue: r.pick(QUEUES),
      priority: r.int(3),
      runAt,
      ...this.keyed(),
      ...(batchId === null
        ? drawDependencies(
            this.depRng,
            this.tokens,
            [...this.running.values()].map((c) => c.token),
          )
        : { batchId, stage }),
    };
    try {
      this.tokens.push(await this.h.add(input));
    } catch (e) {
      // a stage earlier than one already started, or a batch no longer open: refused, as it should be
      if (batchId === null) throw e;
    }
  }

  /** a task's key: given, or in its payload for a queue's keyFrom (`$.k`), or none */
  keyed(): { payload: unknown; concurrencyKey?: string } {
    const f = this.throttleRng;
    const x = f.next();
    if (x < 0.3) return { payload: null, concurrencyKey: f.pick(KEYS) };
    if (x < 0.6) return { payload: { k: f.pick(KEYS) } };
    return { payload: null };
  }

  /** Throttle of a queue, at random: a per-key limit, keyFrom, a rate limit (long periods: see RATE_PERIODS). */
  async throttle(q: string) {
    const f = this.throttleRng;
    const rateLimit = f.chance(0.35) ? { limit: 1 + f.int(4), periodSeconds: f.pick(RATE_PERIODS), perKey: f.chance(0.4) } : null;
    const patch = { perKeyLimit: f.pick([null, null, 1, 2]), keyFrom: f.pick([null, '$.k']), rateLimit };
    await this.store.commands.setQueue(q, patch, 'contract');
  }

  async setUp() {
    for (const q of QUEUES) await this.throttle(q);
    const r = this.rng;
    for (let i = 0; i < 4; i++) this.slots.push(await this.h.worker());
    // the walk's tasks run handler demo.echo: known, so that "why" does not stop at the handler
    await this.store.worker.registerHandlers(['demo.echo']);
    for (const q of QUEUES) {
      const patch = { concurrencyLimit: r.pick([null, null, 1, 2, 3]), paused: r.chance(0.15) };
      this.limits.set(q, (await this.store.commands.setQueue(q, patch, 'contract')).concurrencyLimit);
    }
    for (let i = 1 + r.int(3); i > 0; i--) await this.batch();
    for (let n = 8 + r.int(12); n > 0; n--) await this.enqueue(null, null);
  }

  /** A new batch: a cap or none, continue or abort, a few tasks over three stages, released or not. */
  async batch() {
    const r = this.rng;
    const onFailure = r.pick(['continue', 'abort'] as const);
    const b = await this.store.commands.createBatch({ maxParallel: r.pick([null, 1, 2]), onFailure });
    this.batches.push(b.id);
    for (let n = 2 + r.int(8); n > 0; n--) await this.enqueue(b.id, r.int(3));
    if (r.chance(0.5)) await this.store.commands.releaseBatch(b.id);
  }

  async settle(c: ClaimedTask) {
    const r = this.rng;
    const past = new Date(Date.now() - 5000);
    const settlement: Settlement = r.pick<Settlement>([
      { kind: 'succeeded', result: null },
      { kind: 'succeeded', result: null },
      { kind: 'retry', outcome: 'failed', error: err('again'), runAfter: r.chance(0.5) ? past : new Date(Date.now() + HOUR) },
      { kind: 'dead', outcome: 'failed', error: err('boom') },
      { kind: 'cancelled', error: null },
    ]);
    if (c.ahead && this.aheadRng.chance(0.3)) {
      // never started: given back, nothing counted
      await this.store.worker.finish([
        { taskId: c.id, workerId: c.workerId, attempt: c.attempt, settlement: { kind: 'given_back', reason: 'walk' } },
      ]);
    } else if (c.ahead) {
      // a slot of its claimer's pool starts it: its start recorded with its end (a suspension too)
      const start = { at: new Date(), claimer: c.workerId, session: c.session, due: c.runAfter };
      const ended = this.suspension() ?? settlement;
      await this.store.worker.finish([{ taskId: c.id, workerId: c.workerId, attempt: c.attempt, settlement: ended, start }]);
    } else await this.h.settle(c, this.suspension() ?? settlement);
    this.running.delete(c.id);
  }

  /**
   * Now and then a durable handler's suspension instead (types/durable.ts): a sleep or an event wait, woken by
   * time (due already, in an hour, never) or by an event — the task waiting meanwhile, never claimable.
   */
  suspension(): Settlement | null {
    const d = this.durRng;
    if (!d.chance(0.2)) return null;
    const kind = d.pick(['sleep', 'event'] as const);
    const until = d.pick([new Date(Date.now() - 5000), new Date(Date.now() + HOUR), ...(kind === 'event' ? [null] : [])]);
    this.suspended++;
    // each suspension a step of its own, as a handler's are
    const step = {
      seq: this.suspended,
      name: `walk ${this.suspended}`,
      kind,
      status: kind === 'sleep' ? ('sleeping' as const) : ('waiting' as const),
      result: null,
      error: null,
      startedAt: new Date(),
      endedAt: null,
      wakeAt: until,
      event: kind === 'event' ? 'walk.event' : null,
      match: kind === 'event' ? { n: d.int(2) } : null,
    };
    return { kind: 'suspended', step, until };
  }

  /** One random move that changes what is claimable. */
  async move() {
    if (this.throttleRng.chance(0.06)) return this.throttle(this.throttleRng.pick(QUEUES));
    if (this.durRng.chance(0.1)) {
      if (this.durRng.chance(0.5)) await this.store.maintenance.wakeDue();
      else await this.store.commands.sendEvent({ name: 'walk.event', payload: { n: this.durRng.int(2) }, caller: 'contract' });
      return sleep(MARGIN);
    }
    const r = this.rng;
    const x = r.next();
    const running = [...this.running.values()];
    if (x < 0.45) {
      if (running.length) await this.settle(r.pick(running));
    } else if (x < 0.53) {
      const q = r.pick(QUEUES);
      const patch = r.chance(0.5) ? { concurrencyLimit: r.pick([null, 1, 2, 3]) } : { paused: r.chance(0.25) };
      this.limits.set(q, (await this.store.commands.setQueue(q, patch, 'contract')).concurrencyLimit);
    } else if (x < 0.57) {
      if (this.tokens.length) await this.store.commands.cancel(r.pick(this.tokens));
    } else if (x < 0.63) {
      const token = this.tokens.length ? r.pick(this.tokens) : null;
      if (token && (await this.store.commands.retry(token)) === 'retried') {
        await sleep(MARGIN);
      }
    } else if (x < 0.67) {
      const res = await this.store.maintenance.rescueExpired();
      if (res.retried + res.dead + (res.released ?? 0) > 0) {
        await sleep(MARGIN);
        for (const c of running) if (!['running', 'claimed'].includes(await this.h.status(c.token))) this.running.delete(c.id);
      }
    } else if (x < 0.69) {
      if (this.batches.length) await this.store.commands.cancelBatch(r.pick(this.batches));
    } else if (x < 0.71) {
      if (this.batches.length) await this.store.commands.releaseBatch(r.pick(this.batches));
    } else if (x < 0.75) await this.batch();
    else {
      const b = this.batches.length && r.chance(0.4) ? r.pick(this.batches) : null;
      await this.enqueue(b, b === null ? null : r.int(4));
    }
  }

  /** What else the read model says about a disputed claim: who holds tokens, the queue's changes. */
  async context(c: ClaimedTask): Promise<string> {
    const running = (await this.store.reads.listRunning()).filter((r) => r.queue === c.queue && r.token !== c.token);
    const changes = await this.store.reads.queueChanges(c.queue, 10);
    return [
      `running in ${c.queue} before this claim: ${running.map((r) => `${r.token.slice(-8)}(token ${r.tokenNo ?? 'none'})`).join(' ')}`,
      `changes of ${c.queue}, newest first: ${changes.map((q) => `${q.field} ${q.oldValue}→${q.newValue}`).join('; ')}`,
    ].join('\n');
  }

  /** Snapshot, ask the model, claim one task, compare. */
  async claimAndCheck(seed: number, step: number) {
    const r = this.rng;
    const only = r.chance(0.3) ? QUEUES.filter(() => r.chance(0.5)) : null;
    const short = r.chance(0.1);
    const tokens = new Map<number, string>();
    const views = new Map<number, TaskView>();
    const s = await snapshot(this.store, only, new Date(Date.now() + this.skew), tokens, views);
    this.edgesChecked += await checkEdges(this.store, [...views.values()], `seed ${seed}, step ${step}`);
    const whys = await this.whyBefore(s, allowedClaims(s), tokens, `seed ${seed}, step ${step}`);
    const opts = { leaseMs: short ? SHORT_LEASE : LONG_LEASE, queues: only ?? undefined };
    const before = Date.now();
    const slot = r.pick(this.slots);
    const ahead = this.store.capabilities.prefetch > 0 && this.aheadRng.chance(0.3);
    // a task of a rate-limited queue is never claimed ahead (its rate slot would be dated before its start): for a
    // claim ahead those queues are as if outside the claimer's filter
    const unrated = s.queues.filter((q) => !q.rateLimit && (!s.only?.length || s.only.includes(q.name))).map((q) => q.name);
    const allowed = !ahead ? allowedClaims(s) : unrated.length ? allowedClaims({ ...s, only: unrated }) : new Set<number>();
    const got = ahead
      ? await this.store.worker.claim([], { ...opts, ahead: { count: 1, claimer: slot } })
      : await this.store.worker.claim([slot], opts);
    if (ahead) this.ahead++;
    const after = Date.now();
    const at = got[0]?.startedAt.getTime();
    if (at !== undefined && (at < before || at > after)) this.skew = at - (before + after) / 2;
    const where = `seed ${seed}, step ${step}`;
    const may = allowed.size ? '#' + [...allowed].join(', #') : 'nothing';
    if (got.length === 0) {
      this.empties++;
      if (allowed.size) expect.fail(`${where}: the store claimed nothing, the model allows ${may}\n${describeSnapshot(s)}`);
      return;
    }
    const c = got[0]!;
    this.claims++;
    expect(got, where).toHaveLength(1);
    if (!allowed.has(c.id)) {
      const why = verdicts(s).get(c.id) ?? 'not in the snapshot';
      const context = await this.context(c);
      expect.fail(`${where}: the store claimed #${c.id} (${why}), the model allows ${may}\n${describeSnapshot(s)}\n${context}`);
    }
    checkClaimedParents(c, views.get(c.id), where);
    if (c.parents.length) this.claimedAfterParents++;
    const why = whys.get(c.id);
    if (why && !VERDICT_WHY.eligible.includes(why.reason)) {
      expect.fail(`${where}: the store claimed #${c.id}, but "why" said before: ${why.reason} (${why.text})\n${describeSnapshot(s)}`);
    }
    this.running.set(c.id, c);
    if (short) await sleep(SHORT_LEASE + MARGIN);
  }

  /**
   * "Why" for the tasks the claim may take and for a few others (a verdict drawn first, so that rare ones
   * are asked about too), asked of the store before the claim: each answer must be one the model's verdict
   * allows, judged for any worker (no queue filter: "why" has no claimer in view). Returns the answers by id.
   */
  async whyBefore(s: ClaimSnapshot, allowed: Set<number>, tokens: Map<number, string>, where: string): Promise<Map<number, Why>> {
    const v = verdicts({ ...s, only: null });
    const r = this.whyRng;
    const byVerdict = new Map<string, number[]>();
    for (const t of s.tasks) if (!allowed.has(t.id)) byVerdict.set(v.get(t.id)!, [...(byVerdict.get(v.get(t.id)!) ?? []), t.id]);
    const ids = new Set(allowed);
    for (let n = 0; n < this.whyPerStep && byVerdict.size > 0; n++) {
      const verdict = r.pick([...byVerdict.keys()]);
      const group = byVerdict.get(verdict)!;
      ids.add(group.splice(r.int(group.length), 1)[0]!);
      if (group.length === 0) byVerdict.delete(verdict);
    }
    const answers = await Promise.all(
      [...ids].map(async (id) => {
        const task = await this.store.reads.getTask(tokens.get(id)!);
        const why = await whyOfTask(this.store.reads, task!, s.now);
        checkWaitingWhy(task!, why, where);
        return [id, why] as const;
      }),
    );
    for (const [id, why] of answers) {
      const verdict = v.get(id)!;
      this.whyChecked.set(verdict, (this.whyChecked.get(verdict) ?? 0) + 1);
      if (!VERDICT_WHY[verdict].includes(why.reason)) {
        expect.fail(
          `${where}: "why" says ${why.reason} for #${id} (${why.text}), the model's verdict is ${verdict} ` +
            `(why may say ${VERDICT_WHY[verdict].join(' or ')})\n${describeSnapshot(s)}`,
        );
      }
    }
    return new Map(answers);
  }
}

export function claimModelTests(factory: StoreFactory, opts: ClaimModelOptions = {}) {
  const envSteps = Number(process.env.CLAIM_MODEL_STEPS);
  const steps = Number.isInteger(envSteps) && envSteps > 0 ? envSteps : (opts.steps ?? CLAIM_MODEL_DEFAULTS.steps);
  const timeoutMs = opts.timeoutMs ?? CLAIM_MODEL_DEFAULTS.timeoutMs;
  const whyPerStep = opts.whyPerStep ?? CLAIM_MODEL_DEFAULTS.whyPerStep;
  describe('claim against the claim policy model (randomized)', () => {
    const h = useStore(factory);
    /** claims of a task with parents, over the seeds */
    let claimedAfterParents = 0;

    for (const seed of SEEDS) {
      it(
        `seed ${seed}: every claim is one the model allows; nothing only when the model agrees; "why" agrees with both`,
        async () => {
          const stop = new AbortController();
          const timer = setTimeout(
            () => stop.abort(`seed ${seed} out of time after ${timeoutMs - STOP_MARGIN_MS} ms`),
            timeoutMs - STOP_MARGIN_MS,
          );
          const walk = new Walk(new Harness(stoppable(h().store, stop.signal)), prng(seed), seed, whyPerStep);
          let step = 0;
          try {
            await walk.setUp();
            for (; step < steps; step++) {
              for (let n = 1 + walk.rng.int(3); n > 0; n--) await walk.move();
              await walk.claimAndCheck(seed, step);
            }
          } catch (e) {
            console.error(`claim model: failed with seed ${seed} (replay: CLAIM_MODEL_SEEDS=${seed})`);
            if (stop.signal.aborted) {
              throw new Error(
                `seed ${seed}: stopped at step ${step} of ${steps}, out of time (${timeoutMs} ms); a slow server needs fewer ` +
                  'steps (CLAIM_MODEL_STEPS, or the claimModel option of storeContract) or more time',
                { cause: e },
              );
            }
            throw e;
          } finally {
            clearTimeout(timer);
            stop.abort('the seed is over');
          }
          // a walk that never claims proves nothing (a third or so of the claims find nothing, by design)
          expect(walk.claims, `seed ${seed}: ${walk.claims} claims, ${walk.empties} found nothing`).toBeGreaterThan(steps / 10);
          // a walk whose dependencies were never checked proves nothing of them
          expect(walk.edgesChecked, `seed ${seed}: tasks with parents checked`).toBeGreaterThan(steps / 10);
          claimedAfterParents += walk.claimedAfterParents;
          // and one that never suspended a task proves nothing of durable handlers' waits
          expect(walk.suspended, `seed ${seed}: suspensions`).toBeGreaterThan(0);
          if (process.env.CLAIM_MODEL_WHY_TALLY)
            console.log(
              `seed ${seed}: "why" checked`,
              Object.fromEntries(walk.whyChecked),
              `edges of ${walk.edgesChecked}, ${walk.claimedAfterParents} claims after parents`,
            );
        },
        timeoutMs,
      );
    }

    // the default seeds together: tasks released by their parents were claimed (one seed alone may claim none)
    it.skipIf(process.env.CLAIM_MODEL_SEEDS !== undefined)('the walks claimed tasks after their parents had finished', () => {
      expect(claimedAfterParents).toBeGreaterThan(SEEDS.length / 2);
    });
  });
}
