// A durable handler's context: `ctx.step`, `ctx.transaction`, `ctx.sleep`, `ctx.waitForEvent` (the rules:
// types/durable.ts). One DurableRun per attempt of a handler task; it reads the recorded steps at its first step
// call (a handler that calls none costs nothing), replays what succeeded, runs and records the rest (each write
// fenced on the attempt), and turns a sleep or a wait into the attempt's suspension, which run.ts settles.
//
// A task claimed ahead may run before its start is recorded (pool-starts.ts): a step's write, fenced on a running
// task, first has the start recorded (`started`).
//
// A step runs through `StepHook` when one is given (run.ts: a span per step, tracing-steps.ts): every step goes
// through it — replays (`replayed`), failures, and a sleep or wait that suspends (it throws the Suspended there) —
// without the hook knowing how steps are recorded.
import { AsyncLocalStorage } from 'node:async_hooks';
import { NonRetryableError, TaskError } from './errors';
import { MAX_STEPS_PER_TASK, MAX_TRANSACTION_TIMEOUT_MS, TRANSACTION_TIMEOUT_MS } from './limits';
import { errorInfo } from './retry';
import type { RunningAttempt, StepSql, WorkerPort } from './ports';
import { checkEventName, checkMatch, checkStepName, planStep, stepResult, wakeTime } from './steps';
import type { EventMatch, Settlement, StepKind, StepRecord, StepsLoaded, StepWrite, UnrecordedStart } from './types';

/** The statements of a transactional step (`ctx.transaction`): named parameters, `@name` ↔ `{ name: value }`. */
export interface StepTransaction {
  /** run a statement; how many rows it changed */
  execute(sql: string, params?: Record<string, unknown>): Promise<{ rowsAffected: number }>;
  /** run a query; its rows */
  query<Row = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<Row[]>;
}

export interface WaitForEventOptions {
  /** the event's name, e.g. `order.paid` */
  event: string;
  /** fields the event's payload must hold at its top level, each equal (absent: any event of that name) */
  match?: EventMatch;
  /** resume with null after this long (ms or a duration such as '2h'); absent: wait for the event however long */
  timeoutMs?: number | string;
}

export interface TransactionStepOptions {
  /** rolled back (and the step failed) when still open after this long; default 10 s, at most 20 s and half the lease */
  timeoutMs?: number;
}

/** The durable part of a handler's context. Each step's name is unique within a run; call them in a fixed order. */
export interface DurableContext {
  /**
   * Run `fn` once and record its JSON result against the task; when the task runs again (a retry, a rescued lease,
   * a resume), the recorded result is returned without running it. What it returns is its JSON round trip.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<Awaited<T>>;
  /**
   * Run `fn`'s statements on the worker's own connection to readpast's database in one transaction that also
   * records the step: both commit or neither, so its effect happens exactly once.
   */
  transaction<T>(name: string, fn: (tx: StepTransaction) => Promise<T>, opts?: TransactionStepOptions): Promise<Awaited<T>>;
  /** Suspend the task until then (ms, '3d', a Date): the worker and every slot it held are released meanwhile. */
  sleep(name: string, duration: number | string | Date): Promise<void>;
  /** Suspend the task until a matching event arrives (its payload) or the timeout passes (null). */
  waitForEvent<T = unknown>(name: string, opts: WaitForEventOptions): Promise<T | null>;
}

/** One step as a tracing hook sees it. */
export interface StepInfo {
  taskId: number;
  attempt: number;
  seq: number;
  name: string;
  kind: StepKind;
  /** its recorded result is returned, it does not run */
  replayed: boolean;
}

export type StepHook = <T>(step: StepInfo, run: () => Promise<T>) => Promise<T>;

/** Thrown by `sleep` / `waitForEvent` to end the attempt; run.ts settles it as the suspension. */
export class Suspended extends Error {
  override readonly name = 'Suspended';
  constructor(readonly settlement: Extract<Settlement, { kind: 'suspended' }>) {
    super(`suspended on step ${JSON.stringify(settlement.step.name)}`);
  }
}

const plainStep = (seq: number, name: string, kind: StepKind, startedAt: Date): StepWrite => ({
  seq,
  name,
  kind,
  status: 'succeeded',
  result: null,
  error: null,
  startedAt,
  endedAt: null,
  wakeAt: null,
  event: null,
  match: null,
});

/** The step running in this async context, and its run: one store for every attempt (an instance each would cost each promise). */
const insideStep = new AsyncLocalStorage<{ run: DurableRun; step: string }>();

export class DurableRun implements DurableContext {
  private loaded: Promise<Map<number, StepRecord>> | null = null;
  private suspensionCount: number | null = null;
  private seq = 0;
  private readonly names = new Set<string>();
  /** set once a sleep or wait ended the attempt: every later call throws it again */
  suspension: Suspended | null = null;

  constructor(
    private readonly worker: WorkerPort,
    private readonly attempt: RunningAttempt,
    private readonly signal: AbortSignal,
    private readonly leaseMs: number,
    private readonly hook: StepHook | null = null,
    /** the attempt's start, not recorded yet (a task claimed ahead) */
    private readonly unrecorded: UnrecordedStart | null = null,
  ) {}

  /** A step's write is fenced on the attempt running: its start recorded first (or refused: the write then fails). */
  private async started(): Promise<void> {
    const u = this.unrecorded;
    if (!u || u.done) return;
    u.hurry();
    await u.wait(this.leaseMs);
  }

  /** Attempts of the task that ended suspended (read once; also by run.ts when the attempt fails). */
  async suspensions(): Promise<number> {
    if (this.suspensionCount === null) await this.records();
    return this.suspensionCount!;
  }

  private records(): Promise<Map<number, StepRecord>> {
    this.loaded ??= this.worker.loadSteps(this.attempt).then((l: StepsLoaded) => {
      this.suspensionCount = l.suspensions;
      return new Map(l.steps.map((s) => [s.seq, s]));
    });
    return this.loaded;
  }

  /** The checks every step call makes, in order; its seq. */
  private enter(name: string): number {
    if (this.suspension) throw this.suspension;
    const outer = insideStep.getStore();
    if (outer?.run === this) {
      throw new NonRetryableError(`step ${JSON.stringify(name)} called inside step ${JSON.stringify(outer.step)}: steps do not nest`);
    }
    checkStepName(name);
    if (this.names.has(name))
      throw new NonRetryableError(`step name ${JSON.stringify(name)} used twice in one run: each step needs its own`);
    this.names.add(name);
    const seq = ++this.seq;
    if (seq > MAX_STEPS_PER_TASK)
      throw new NonRetryableError(`step ${JSON.stringify(name)}: a task records at most ${MAX_STEPS_PER_TASK} steps`);
    if (this.signal.aborted) throw this.signal.reason;
    return seq;
  }

  // biome-ignore lint/suspicious/noExplicitAny: each step method types its own result
  private traced(seq: number, name: string, kind: StepKind, replayed: boolean, run: () => Promise<unknown>): Promise<any> {
    if (!this.hook) return run();
    return this.hook({ taskId: this.attempt.taskId, attempt: this.attempt.attempt, seq, name, kind, replayed }, run);
  }

  private async record(step: StepWrite): Promise<void> {
    await this.started();
    if (!(await this.worker.recordStep(this.attempt, step))) throw this.lost(step.name);
  }

  private lost(name: string): Error {
    return new TaskError(
      `step ${JSON.stringify(name)} was not recorded: this attempt no longer owns its task (lease expired or cancelled)`,
    );
  }

  /** A step's error is recorded (best effort: the attempt fails with it anyway) and thrown on. */
  private async failed(seq: number, name: string, kind: StepKind, startedAt: Date, err: unknown): Promise<never> {
    const step: StepWrite = { ...plainStep(seq, name, kind, startedAt), status: 'failed', error: errorInfo(err), endedAt: new Date() };
    await this.started();
    await this.worker.recordStep(this.attempt, step).catch(() => false);
    throw err;
  }

  async step<T>(name: string, fn: () => T | Promise<T>): Promise<Awaited<T>> {
    const seq = this.enter(name);
    if (typeof fn !== 'function') throw new NonRetryableError(`step ${JSON.stringify(name)}: needs a function to run`);
    const plan = planStep((await this.records()).get(seq), seq, name, 'step');
    if (plan.replay) return this.traced(seq, name, 'step', true, async () => plan.record.result as Awaited<T>);
    return this.traced(seq, name, 'step', false, async () => {
      const startedAt = new Date();
      let result: unknown;
      try {
        result = stepResult(await insideStep.run({ run: this, step: name }, fn), name);
      } catch (err) {
        return this.failed(seq, name, 'step', startedAt, err);
      }
      await this.record({ ...plainStep(seq, name, 'step', startedAt), result, endedAt: new Date() });
      return result as Awaited<T>;
    });
  }

  async transaction<T>(name: string, fn: (tx: StepTransaction) => Promise<T>, opts: TransactionStepOptions = {}): Promise<Awaited<T>> {
    const seq = this.enter(name);
    if (typeof fn !== 'function') throw new NonRetryableError(`step ${JSON.stringify(name)}: needs a function to run`);
    const t = opts.timeoutMs;
    if (t !== undefined && (!Number.isInteger(t) || t < 1 || t > MAX_TRANSACTION_TIMEOUT_MS)) {
      throw new NonRetryableError(`step ${JSON.stringify(name)}: timeoutMs is an integer from 1 to ${MAX_TRANSACTION_TIMEOUT_MS}`);
    }
    // never so long that this process's heartbeats (which wait for it on SQLite) let its leases lapse
    const timeoutMs = Math.max(1, Math.min(t ?? TRANSACTION_TIMEOUT_MS, Math.floor(this.leaseMs / 2)));
    const plan = planStep((await this.records()).get(seq), seq, name, 'transaction');
    if (plan.replay) return this.traced(seq, name, 'transaction', true, async () => plan.record.result as Awaited<T>);
    return this.traced(seq, name, 'transaction', false, async () => {
      const startedAt = new Date();
      const step = plainStep(seq, name, 'transaction', startedAt);
      let result: unknown;
      let ok: boolean;
      try {
        await this.started();
        ok = await this.worker.transactionStep(
          this.attempt,
          step,
          async (sql) => {
            result = stepResult(await insideStep.run({ run: this, step: name }, () => fn(stepTransaction(sql))), name);
            step.result = result;
            step.endedAt = new Date();
            return result;
          },
          timeoutMs,
        );
      } catch (err) {
        return this.failed(seq, name, 'transaction', startedAt, err);
      }
      if (!ok) throw this.lost(name);
      return result as Awaited<T>;
    });
  }

  async sleep(name: string, duration: number | string | Date): Promise<void> {
    const seq = this.enter(name);
    const now = new Date();
    const wakeAt = wakeTime(duration, now, `sleep ${JSON.stringify(name)}`);
    const plan = planStep((await this.records()).get(seq), seq, name, 'sleep');
    if (plan.replay) return this.traced(seq, name, 'sleep', true, async () => undefined);
    const step: StepWrite = { ...plainStep(seq, name, 'sleep', now), wakeAt };
    if (wakeAt.getTime() <= now.getTime()) {
      return this.traced(seq, name, 'sleep', false, () => this.record({ ...step, endedAt: now }));
    }
    return this.traced(seq, name, 'sleep', false, async () => {
      throw this.suspend({ ...step, status: 'sleeping' }, wakeAt);
    });
  }

  async waitForEvent<T = unknown>(name: string, opts: WaitForEventOptions): Promise<T | null> {
    const seq = this.enter(name);
    const now = new Date();
    const label = `waitForEvent ${JSON.stringify(name)}`;
    if (!opts || typeof opts !== 'object') throw new NonRetryableError(`${label}: needs { event, match?, timeoutMs? }`);
    let event: string;
    let match: EventMatch;
    try {
      event = checkEventName(opts.event, 'event');
      match = checkMatch(opts.match, 'match');
    } catch (err) {
      throw new NonRetryableError(`${label}: ${(err as Error).message}`);
    }
    const until = opts.timeoutMs === undefined ? null : wakeTime(opts.timeoutMs, now, `${label}: timeoutMs`);
    const plan = planStep((await this.records()).get(seq), seq, name, 'event');
    if (plan.replay) return this.traced(seq, name, 'event', true, async () => (plan.record.result ?? null) as T | null);
    const step: StepWrite = { ...plainStep(seq, name, 'event', now), wakeAt: until, event, match };
    if (until !== null && until.getTime() <= now.getTime()) {
      await this.traced(seq, name, 'event', false, () => this.record({ ...step, endedAt: now }));
      return null;
    }
    return this.traced(seq, name, 'event', false, async () => {
      throw this.suspend({ ...step, status: 'waiting' }, until);
    });
  }

  private suspend(step: StepWrite, until: Date | null): Suspended {
    this.suspension = new Suspended({ kind: 'suspended', step, until });
    return this.suspension;
  }
}

/** The handler's view of a transactional step's statements. */
function stepTransaction(sql: StepSql): StepTransaction {
  const named = (params: unknown): Record<string, unknown> | undefined => {
    if (params === undefined) return undefined;
    if (params === null || typeof params !== 'object' || Array.isArray(params)) {
      throw new NonRetryableError('tx.execute / tx.query: parameters are named — an object { name: value } for @name');
    }
    return params as Record<string, unknown>;
  };
  return {
    execute: async (text, params) => ({ rowsAffected: (await sql.execute(text, named(params))).rowsAffected }),
    query: async <Row>(text: string, params?: Record<string, unknown>) => (await sql.execute<Row>(text, named(params))).rows,
  };
}
