// Running one attempt: dispatch on the task kind, enforce the timeout, and turn whatever happened
// into a Settlement. Never throws. A handler's context carries its durable steps (durable.ts): a sleep or a wait
// settles the attempt as suspended, and a failure counts attempts less those that ended suspended. A traced attempt
// gives its steps a span each (tracing-steps.ts).
import { AttemptOutputBuffer, flusherFor } from './attempt-output';
import { DurableRun, Suspended } from './durable';
import { TaskError } from './errors';
import type { HandlerRegistry } from './handlers';
import { MAX_RESULT_BYTES } from './limits';
import { errorInfo, failureSettlement } from './retry';
import type { RunningAttempt, WorkerPort } from './ports';
import type { ClaimedTask, ErrorInfo, Settlement, UnrecordedStart } from './types';
import { type AttemptSpan, startAttempt, withDbSpan } from './tracing-attempt';
import { stepSpans } from './tracing-steps';
import { context } from '@opentelemetry/api';

export { MAX_RESULT_BYTES };

/** Why an attempt's AbortSignal fired. */
export class StopReason extends Error {
  override readonly name = 'StopReason';
  constructor(
    readonly kind: 'cancelled' | 'timeout' | 'shutdown' | 'lease_lost',
    message: string,
  ) {
    super(message);
  }
}

/** Keep results small: what cannot be serialised or is too large is replaced by a note. */
export function capResult(value: unknown): unknown {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    return { unserialisable: true, reason: String((err as Error).message ?? err) };
  }
  if (text === undefined) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_RESULT_BYTES) return { truncated: true, bytes, preview: text.slice(0, 1024) };
  return JSON.parse(text);
}

/** What a pool tells the attempts it runs. */
export interface RunOptions {
  /** the pool's lease: a transactional step stays open at most half of it */
  leaseMs: number;
}

async function execute(
  worker: WorkerPort,
  registry: HandlerRegistry,
  task: ClaimedTask,
  signal: AbortSignal,
  output: AttemptOutputBuffer,
  span: AttemptSpan,
  attempt: RunningAttempt,
  durable: DurableRun | null,
): Promise<unknown> {
  switch (task.kind) {
    case 'handler': {
      const handler = registry.get(task.command);
      if (!handler) throw new TaskError(`no handler named ${JSON.stringify(task.command)} is registered in this worker process`);
      const steps = durable!;
      return handler(task.payload, {
        token: task.token,
        taskId: task.id,
        queue: task.queue,
        attempt: task.attempt,
        maxAttempts: task.maxAttempts,
        workerId: task.workerId,
        session: task.session,
        signal,
        parents: task.parents,
        // bound, not arrow functions: made for every attempt, and nothing here needs more than its receiver
        progress: output.report.bind(output),
        log: output.log.bind(output, 'log'),
        step: steps.step.bind(steps),
        transaction: steps.transaction.bind(steps),
        sleep: steps.sleep.bind(steps),
        waitForEvent: steps.waitForEvent.bind(steps),
      });
    }
    case 'sql':
      return withDbSpan(span, { kind: 'sql', text: task.command }, (db) =>
        worker.runSql(db ? { ...attempt, db } : attempt, task.command, signal),
      );
    case 'procedure': {
      const params = (task.payload ?? {}) as Record<string, unknown>;
      return withDbSpan(span, { kind: 'procedure', text: task.command }, (db) =>
        worker.runProcedure(db ? { ...attempt, db } : attempt, task.command, params, signal),
      );
    }
    default:
      throw new TaskError(`unknown task kind ${JSON.stringify(task.kind)}`, { retryable: false });
  }
}

export type { UnrecordedStart };

/** How long an ended attempt's output waits for its start to be recorded before it is written anyway (ms). */
const START_WAIT_MS = 2_000;

/** How an attempt ended: its settlement, and the traceparent of its span (null: not traced). */
export interface AttemptEnd {
  settlement: Settlement;
  trace: string | null;
}

/** Run one attempt in its span (tracing-attempt.ts); never throws. */
export async function runTask(
  worker: WorkerPort,
  registry: HandlerRegistry,
  task: ClaimedTask,
  controller: AbortController,
  opts: RunOptions = { leaseMs: 30_000 },
  unrecorded?: UnrecordedStart,
): Promise<AttemptEnd> {
  const span = startAttempt(task);
  let failure: unknown = null;
  const settlement = await settleAttempt(worker, registry, task, controller, opts, span, unrecorded, (err) => {
    failure = err;
  });
  return { settlement, trace: span.end(settlement, failure) };
}

/** Attempts that failed: those that ended suspended do not count (read only where it decides retry or dead). */
async function triesOf(task: ClaimedTask, durable: DurableRun | null): Promise<number> {
  return durable && task.attempt >= task.maxAttempts ? task.attempt - (await durable.suspensions()) : task.attempt;
}

async function settleAttempt(
  worker: WorkerPort,
  registry: HandlerRegistry,
  task: ClaimedTask,
  controller: AbortController,
  opts: RunOptions,
  span: AttemptSpan,
  unrecorded: UnrecordedStart | undefined,
  failed: (err: unknown) => void,
): Promise<Settlement> {
  const signal = controller.signal;
  const flusher = flusherFor(worker);
  const output =
    flusher?.openAttempt(task.id, task.attempt, task.workerId) ?? new AttemptOutputBuffer(task.id, task.attempt, task.workerId);
  if (unrecorded) output.holdUntil = unrecorded;
  let timer: NodeJS.Timeout | null = null;
  if (task.timeoutMs !== null && task.timeoutMs > 0) {
    timer = setTimeout(() => controller.abort(new StopReason('timeout', `timed out after ${task.timeoutMs} ms`)), task.timeoutMs);
  }
  const attempt: RunningAttempt = {
    taskId: task.id,
    attempt: task.attempt,
    workerId: task.workerId,
    session: task.session,
    output: output.log.bind(output),
    parents: task.parents,
  };
  const durable =
    task.kind === 'handler' ? new DurableRun(worker, attempt, signal, opts.leaseMs, stepSpans(span), unrecorded ?? null) : null;
  try {
    const result = await (span.recording
      ? context.with(span.context, execute, undefined, worker, registry, task, signal, output, span, attempt, durable)
      : execute(worker, registry, task, signal, output, span, attempt, durable));
    // a handler that swallowed its suspension still ended its attempt there
    if (durable?.suspension) return durable.suspension.settlement;
    return { kind: 'succeeded', result: capResult(result) };
  } catch (err) {
    const reason: unknown = signal.aborted ? signal.reason : null;
    const cancelled = reason instanceof StopReason && reason.kind === 'cancelled';
    if (durable?.suspension && !cancelled) return durable.suspension.settlement;
    if (err instanceof Suspended && !cancelled) return err.settlement;
    failed(reason instanceof StopReason ? reason : err);
    const n = await triesOf(task, durable).catch(() => task.attempt);
    if (reason instanceof StopReason) {
      const info: ErrorInfo = {
        number: null,
        message: reason.message,
        detail: err instanceof Error && err !== reason ? errorInfo(err).detail : null,
      };
      switch (reason.kind) {
        case 'cancelled':
          return { kind: 'cancelled', error: info };
        case 'timeout':
          return failureSettlement('timed_out', info, n, task.maxAttempts, task.backoffMs);
        case 'shutdown':
          // given back: an attempt cut short by a shutdown never makes a task dead
          return { kind: 'retry', outcome: 'abandoned', error: info, runAfter: new Date() };
        case 'lease_lost':
          return failureSettlement('abandoned', info, n, task.maxAttempts, task.backoffMs);
      }
    }
    const retryable = (err as { retryable?: unknown })?.retryable !== false;
    return failureSettlement('failed', errorInfo(err), n, task.maxAttempts, task.backoffMs, retryable);
  } finally {
    if (timer) clearTimeout(timer);
    // what the attempt logged is written before its settlement (the write is fenced on the attempt owning its task,
    // running: a claimed task's start is recorded first)
    if (unrecorded && !unrecorded.done && output.dirty) {
      unrecorded.hurry();
      await unrecorded.wait(START_WAIT_MS);
    }
    output.holdUntil = null;
    await flusher?.close(output).catch(() => {});
  }
}
