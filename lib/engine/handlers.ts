// Handler registry: the seeds' message type → processor. Handlers receive the payload, an AbortSignal
// (cancel, timeout, shutdown) and a context; what they return (small JSON) becomes the task's result.
import { ALERT_HANDLER } from './alert-types';
import { deliverAlert, type AlertRuleLookup } from './alert-delivery';
import { NonRetryableError, TaskError } from './errors';
import { HANDLER_NAME, MAX_HANDLER_NAME_LENGTH } from './limits';
import type { DurableContext } from './durable';
import type { WebhookPolicy } from './webhook-guard';
import type { EventMatch, ParentResult } from './types';

/**
 * What a handler gets besides its payload. Its durable part (`step`, `transaction`, `sleep`, `waitForEvent`:
 * durable.ts) records steps against the task, so a run after a crash, a retry or a sleep resumes after them.
 */
export interface HandlerContext extends DurableContext {
  token: string;
  taskId: number;
  queue: string;
  attempt: number;
  maxAttempts: number;
  workerId: string;
  session: number;
  signal: AbortSignal;
  /**
   * the tasks this one depends on (dependsOn, a flow's edges), read when the attempt started: each one's token,
   * node id, command, status and result (a `run` policy may let a child run after a dead parent: result null).
   * Empty when it depends on none.
   */
  parents: readonly ParentResult[];
  /**
   * Report progress: percent 0–100 (clamped) and an optional message, shown on Running and the task
   * page. Buffered in memory, written at most every few hundred ms: call it as often as you like.
   */
  progress(percent: number, message?: string): void;
  /** A log line of this attempt (a non-string is written as JSON), shown live on the task page; the last 1,000 are kept. */
  log(line: unknown): void;
}

export type Handler = (payload: any, ctx: HandlerContext) => unknown | Promise<unknown>;

export class HandlerRegistry {
  private readonly handlers = new Map<string, Handler>();

  register(name: string, fn: Handler): this {
    if (!HANDLER_NAME.test(name)) {
      throw new Error(`invalid handler name ${JSON.stringify(name)}: letters, digits, . _ : - (max ${MAX_HANDLER_NAME_LENGTH})`);
    }
    if (typeof fn !== 'function') throw new Error(`handler ${name} is not a function`);
    this.handlers.set(name, fn);
    return this;
  }

  get(name: string): Handler | undefined {
    return this.handlers.get(name);
  }

  has(name: string): boolean {
    return this.handlers.has(name);
  }

  names(): string[] {
    return [...this.handlers.keys()].sort();
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function objectPayload(payload: unknown, handler: string): Record<string, unknown> {
  if (payload === null || payload === undefined) return {};
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    throw new NonRetryableError(`${handler}: payload must be a JSON object`);
  }
  return payload as Record<string, unknown>;
}

function intField(p: Record<string, unknown>, key: string, handler: string, dflt: number, max: number): number {
  const v = p[key] ?? dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw new NonRetryableError(`${handler}: ${key} must be an integer from 0 to ${max}`);
  }
  return v;
}

/** The built-in demo handlers, always registered. */
export function registerDemoHandlers(registry: HandlerRegistry): HandlerRegistry {
  registry.register('demo.sleep', async (payload, ctx) => {
    const p = objectPayload(payload, 'demo.sleep');
    const ms = intField(p, 'ms', 'demo.sleep', 1000, 24 * 3600 * 1000);
    await sleep(ms, ctx.signal);
    return { slept: ms };
  });
  registry.register('demo.fail', (payload) => {
    const p = objectPayload(payload, 'demo.fail');
    const message = typeof p.message === 'string' && p.message ? p.message : 'demo.fail: failing on purpose';
    const number = typeof p.number === 'number' && Number.isInteger(p.number) ? p.number : null;
    throw new TaskError(message, { number });
  });
  registry.register('demo.flaky', (payload, ctx) => {
    const p = objectPayload(payload, 'demo.flaky');
    const failTimes = intField(p, 'failTimes', 'demo.flaky', 1, 1000);
    if (ctx.attempt <= failTimes) {
      throw new TaskError(`demo.flaky: attempt ${ctx.attempt} of the first ${failTimes} fails`, { number: 50000 });
    }
    return { succeededOnAttempt: ctx.attempt };
  });
  registry.register('demo.echo', (payload) => payload ?? null);
  // reports progress and writes a log line per step (Running shows the bar, the task page the live tail)
  registry.register('demo.progress', async (payload, ctx) => {
    const p = objectPayload(payload, 'demo.progress');
    const steps = intField(p, 'steps', 'demo.progress', 20, 10_000);
    const ms = intField(p, 'ms', 'demo.progress', 500, 3600 * 1000);
    ctx.log(`processing ${steps} steps of ${ms} ms`);
    ctx.progress(0, 'starting');
    for (let i = 1; i <= steps; i++) {
      await sleep(ms, ctx.signal);
      ctx.log(`step ${i}/${steps}: ${i * 37} rows copied`);
      ctx.progress((i / steps) * 100, `step ${i} of ${steps}`);
    }
    ctx.log('done');
    return { steps };
  });
  // a durable handler to try: `steps` steps of `ms` each, a sleep of `sleepMs`, then (with `event`) a wait for that
  // event matching `match` (timing out after `timeoutMs`), then a last step; see the task page's timeline
  registry.register('demo.durable', async (payload, ctx) => {
    const p = objectPayload(payload, 'demo.durable');
    const steps = intField(p, 'steps', 'demo.durable', 3, 100);
    const ms = intField(p, 'ms', 'demo.durable', 200, 3600 * 1000);
    const sleepMs = intField(p, 'sleepMs', 'demo.durable', 2000, 30 * 24 * 3600 * 1000);
    const event = typeof p.event === 'string' && p.event ? p.event : null;
    const match = p.match && typeof p.match === 'object' && !Array.isArray(p.match) ? (p.match as EventMatch) : undefined;
    const timeoutMs = p.timeoutMs === undefined ? undefined : intField(p, 'timeoutMs', 'demo.durable', 0, 30 * 24 * 3600 * 1000);
    for (let i = 1; i <= steps; i++) {
      await ctx.step(`step ${i}`, async () => {
        await sleep(ms, ctx.signal);
        return { step: i, rows: i * 37 };
      });
    }
    if (sleepMs > 0) await ctx.sleep('cool-down', sleepMs);
    const got = event ? await ctx.waitForEvent('approval', { event, match, timeoutMs }) : null;
    return ctx.step('finish', () => ({ steps, event: got }));
  });
  return registry;
}

/**
 * The built-in handlers readpast itself enqueues (alert deliveries, queue readpast.alerts): every pool needs them.
 * `alertRule` reads a delivery's rule (its webhook URL) from the store; a pool always registers them with it.
 * `webhooks` says where a delivery may connect (webhook-guard.ts; READPAST_WEBHOOK_ALLOW without it).
 */
export function registerBuiltinHandlers(
  registry: HandlerRegistry,
  alertRule: AlertRuleLookup | null = null,
  webhooks: WebhookPolicy | null = null,
): HandlerRegistry {
  if (alertRule || !registry.has(ALERT_HANDLER)) {
    registry.register(ALERT_HANDLER, (payload, ctx) => deliverAlert(payload, ctx, alertRule, webhooks));
  }
  return registry;
}

export function defaultRegistry(): HandlerRegistry {
  return registerBuiltinHandlers(registerDemoHandlers(new HandlerRegistry()));
}
