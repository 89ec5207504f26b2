// Tracing with OpenTelemetry, through @opentelemetry/api only: with no SDK registered every call here is the API's
// no-op (nothing recorded, nothing stored). The spans follow the messaging conventions:
//  - `send <queue>` (PRODUCER) around an enqueue; the task stores the W3C context of that span (its traceparent and
//    tracestate) — or, with no SDK, the caller's own context when there is one (an HTTP `traceparent` header);
//  - `process <queue>` (CONSUMER) per attempt (tracing-attempt.ts): the first attempt is a child of the enqueue's
//    context, in the same trace; a later attempt is the root of a trace of its own that links to the enqueue's context
//    and to the attempt before it (one trace per attempt, never one endless trace across hours of retries);
//  - a database span under a sql or procedure task's attempt, and a span per durable step (tracing-steps.ts).
// The W3C text format is parsed and written here (no propagator needed: a task carries exactly one context).
import {
  context,
  createTraceState,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Attributes,
  type Context,
  type Exception,
  type Span,
  SpanKind,
  type SpanContext,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { TraceContext } from './types';

/** The instrumentation scope of every readpast span. */
export const TRACER_NAME = 'readpast';

/** One tracer for the process: the API hands it to whatever provider is registered, now or later. */
export const tracer = trace.getTracer(TRACER_NAME);

/** messaging.system of every span */
export const MESSAGING_SYSTEM = 'readpast';

/** tracestate is at most 512 characters (W3C: what a vendor must pass on); a longer one is dropped, not cut. */
export const MAX_TRACESTATE = 512;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const TRACESTATE = /^[\x20-\x7e]*$/;

/** A W3C `traceparent` → its span context (remote); null when it is not one (bad form, version ff, zero ids). */
export function parseTraceparent(text: string | null | undefined, tracestate?: string | null): SpanContext | null {
  if (typeof text !== 'string') return null;
  const m = TRACEPARENT.exec(text.trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return null;
  const sc: SpanContext = { traceId: m[2]!, spanId: m[3]!, traceFlags: Number.parseInt(m[4]!, 16) & 0xff, isRemote: true };
  if (!isSpanContextValid(sc)) return null;
  const state = cleanTracestate(tracestate);
  if (state) sc.traceState = createTraceState(state);
  return sc;
}

/** A tracestate worth keeping: printable, at most MAX_TRACESTATE characters; otherwise null. */
export function cleanTracestate(text: string | null | undefined): string | null {
  if (typeof text !== 'string') return null;
  const t = text.trim();
  return t && t.length <= MAX_TRACESTATE && TRACESTATE.test(t) ? t : null;
}

/** A span context → `00-<trace id>-<span id>-<flags>`. */
export function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** What a task stores for a span context (null: an invalid one — no span, no caller's context). */
export function traceContextOf(sc: SpanContext): TraceContext | null {
  if (!isSpanContextValid(sc)) return null;
  const state = sc.traceState?.serialize() ?? '';
  return { traceparent: formatTraceparent(sc), tracestate: state && state.length <= MAX_TRACESTATE ? state : null };
}

/** A caller's trace context as given (an HTTP header's, an option's): valid, or null. */
export function givenTraceContext(traceparent: unknown, tracestate?: unknown): TraceContext | null {
  if (typeof traceparent !== 'string') return null;
  const sc = parseTraceparent(traceparent, typeof tracestate === 'string' ? tracestate : null);
  return sc ? traceContextOf(sc) : null;
}

/** The trace id of a stored traceparent (null: none, or not a traceparent). */
export function traceIdOf(traceparent: string | null | undefined): string | null {
  return parseTraceparent(traceparent)?.traceId ?? null;
}

/** A context whose span is the stored one (remote), under the root: what an attempt's span is a child of. */
export function contextOfTrace(traceparent: string | null | undefined, tracestate?: string | null): Context | null {
  const sc = parseTraceparent(traceparent, tracestate);
  return sc ? trace.setSpanContext(ROOT_CONTEXT, sc) : null;
}

/** Record a failure on a span: error status and an `exception` event. */
export function recordFailure(span: Span, err: unknown, type?: string): void {
  const message = err instanceof Error ? err.message : String(err);
  const exception: Exception =
    err instanceof Error ? (type ? { name: type, message, stack: err.stack } : err) : { name: type ?? 'Error', message };
  span.recordException(exception);
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, 1000) });
}

// ---- producing -------------------------------------------------------------------------------------------

/** An enqueue's `send` span: the context its tasks store, and its end once their tokens are known. */
export interface Send {
  /** what each task of this enqueue stores (null: nothing to store) */
  readonly trace: TraceContext | null;
  /** the enqueue's tokens (created or not), or its failure */
  end(outcome: { tokens: readonly string[] } | { error: unknown }): void;
}

const NOTHING: Send = { trace: null, end() {} };

/**
 * Start the `send` span of an enqueue of `count` tasks to `queue` (null: several queues — a flow, a batch of mixed
 * tasks). Its parent: the caller's given context (an HTTP `traceparent`; or the active span within that trace), else
 * the active span. With no SDK the span is the API's no-op: the given context (if any) is what the tasks store.
 */
export function startSend(queue: string | null, count: number, given?: TraceContext | null, attrs?: Attributes): Send {
  const parent = parentOf(given);
  const span = tracer.startSpan(queue === null ? 'send' : `send ${queue}`, { kind: SpanKind.PRODUCER }, parent);
  const recording = span.isRecording();
  // a no-op span carries its parent's context (or none): store that, and there is nothing to end
  if (!recording) return isSpanContextValid(span.spanContext()) ? { trace: traceContextOf(span.spanContext()), end() {} } : NOTHING;
  span.setAttributes({
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'send',
    ...(queue !== null && { 'messaging.destination.name': queue }),
    ...(count !== 1 && { 'messaging.batch.message_count': count }),
    ...attrs,
  });
  return {
    trace: traceContextOf(span.spanContext()),
    end(outcome) {
      if ('error' in outcome) recordFailure(span, outcome.error);
      else if (outcome.tokens.length === 1) span.setAttribute('messaging.message.id', outcome.tokens[0]!);
      span.end();
    },
  };
}

/**
 * The parent of a `send` span: the active span when it is in the given context's trace (a server that continued the
 * request's `traceparent` in a span of its own: Next.js's), else the given context, else the active span.
 */
function parentOf(given: TraceContext | null | undefined): Context {
  const active = context.active();
  if (!given) return active;
  const sc = parseTraceparent(given.traceparent, given.tracestate);
  if (!sc) return active;
  if (trace.getSpanContext(active)?.traceId === sc.traceId) return active;
  return trace.setSpanContext(ROOT_CONTEXT, sc);
}

/**
 * Run an enqueue inside its `send` span: `fn` gets the context to store; the span ends with its tokens. No span
 * (no SDK, no caller's context): `fn` alone, with nothing wrapped around its promise.
 */
export function traced<T>(send: Send, fn: (trace: TraceContext | null) => Promise<T>, tokens: (r: T) => readonly string[]): Promise<T> {
  return send === NOTHING ? fn(null) : inSpan(send, fn, tokens);
}

async function inSpan<T>(send: Send, fn: (trace: TraceContext | null) => Promise<T>, tokens: (r: T) => readonly string[]): Promise<T> {
  try {
    const r = await fn(send.trace);
    send.end({ tokens: tokens(r) });
    return r;
  } catch (err) {
    send.end({ error: err });
    throw err;
  }
}
