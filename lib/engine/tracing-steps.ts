// A span per durable step (durable.ts: `ctx.step`, `ctx.transaction`, `ctx.sleep`, `ctx.waitForEvent`), through the
// step hook run.ts gives a handler's DurableRun when its attempt's span records (tracing-attempt.ts):
//  - `readpast.step <name>` (INTERNAL), a child of the span active where the handler called it — the attempt's
//    `process <queue>`, or a span of the handler's own inside that trace; anything the step's function traces (an
//    HTTP call, a database client) is the step span's child;
//  - a replayed step (its recorded result returned, nothing run) gets its span too, short, `readpast.step.replayed`
//    true: a resumed attempt's trace shows every step in order, run or not (an event per replay on the attempt's span
//    would be cut at the SDK's 128 events per span, and a handler may have 1,000 steps);
//  - a step that throws: error status and an `exception` event; a sleep or a wait that suspends the task is no
//    failure: `readpast.step.outcome` `suspended`, with its wake time and event.
import { type Attributes, context, SpanKind, trace } from '@opentelemetry/api';
import { Suspended, type StepHook, type StepInfo } from './durable';
import { recordFailure, tracer } from './tracing';
import type { AttemptSpan } from './tracing-attempt';

/** The attributes of a step's span. */
export function stepAttributes(step: StepInfo): Attributes {
  return {
    'readpast.step.name': step.name,
    'readpast.step.kind': step.kind,
    'readpast.step.seq': step.seq,
    'readpast.step.replayed': step.replayed,
    'readpast.attempt': step.attempt,
  };
}

/** What a suspension tells its step's span. */
function suspendedAttributes(s: Suspended): Attributes {
  const step = s.settlement.step;
  return {
    'readpast.step.outcome': 'suspended',
    ...(s.settlement.until && { 'readpast.step.wake_at': s.settlement.until.toISOString() }),
    ...(step.event && { 'readpast.step.event': step.event }),
  };
}

/** The hook of an attempt's steps: null when the attempt's span records nothing (no SDK, not sampled). */
export function stepSpans(attempt: AttemptSpan): StepHook | null {
  if (!attempt.recording) return null;
  const traceId = trace.getSpanContext(attempt.context)?.traceId;
  return async <T>(step: StepInfo, run: () => Promise<T>): Promise<T> => {
    const active = context.active();
    // the handler's own span when it wrapped the step in one (same trace), else the attempt's
    const parent = trace.getSpanContext(active)?.traceId === traceId ? active : attempt.context;
    const span = tracer.startSpan(`readpast.step ${step.name}`, { kind: SpanKind.INTERNAL, attributes: stepAttributes(step) }, parent);
    try {
      const result = await context.with(trace.setSpan(parent, span), run);
      span.setAttribute('readpast.step.outcome', 'succeeded');
      return result;
    } catch (err) {
      if (err instanceof Suspended) span.setAttributes(suspendedAttributes(err));
      else {
        span.setAttribute('readpast.step.outcome', 'failed');
        recordFailure(span, err);
      }
      throw err;
    } finally {
      span.end();
    }
  };
}
