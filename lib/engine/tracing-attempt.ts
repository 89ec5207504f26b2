// The spans of an attempt (lib/engine/run.ts): `process <queue>` (CONSUMER) and, for a sql or procedure task, its
// database span. Which trace an attempt belongs to (the rule, README "OpenTelemetry"):
//  - the first attempt is a child of the context its task stored at enqueue: the request that enqueued it and the
//    attempt that ran it are one trace;
//  - a later attempt (a retry, after a failure, a timeout, an abandoned lease, an operator's retry) is the root of a
//    new trace, linked to the enqueue's context and to the span of the attempt before it — one trace per attempt, as
//    the messaging conventions advise for work that may be retried for hours;
//  - a flow's node links to its parents' last attempts.
// The attempt's own span context goes back with its settlement (AttemptResult.trace): the next attempt links to it.
import { context, type Link, ROOT_CONTEXT, type Span, SpanKind, trace, type Attributes } from '@opentelemetry/api';
import type { DbFacts, DbSpanReporter } from './ports';
import { statementSummary } from './statement-summary';
import { contextOfTrace, formatTraceparent, MESSAGING_SYSTEM, parseTraceparent, recordFailure, tracer } from './tracing';
import type { ClaimedTask, Settlement } from './types';

/** The statement text goes into db.query.text only when READPAST_OTEL_STATEMENTS=1 (a payload may be in it). */
export const statementsTraced = (): boolean => process.env.READPAST_OTEL_STATEMENTS === '1';

function linkTo(traceparent: string | null | undefined, kind: string): Link | null {
  const sc = parseTraceparent(traceparent);
  return sc ? { context: sc, attributes: { 'readpast.link': kind } } : null;
}

/** An attempt's span: the context its handler runs in, and its end with the settlement. */
export interface AttemptSpan {
  /** the context the handler (and the store's database span) runs in */
  readonly context: ReturnType<typeof context.active>;
  /** whether anything is recorded (no SDK, or not sampled: no) */
  readonly recording: boolean;
  /** end it with what the attempt led to; returns the traceparent to keep with the attempt (null: none) */
  end(settlement: Settlement, err: unknown): string | null;
}

const UNTRACED: AttemptSpan = { context: ROOT_CONTEXT, recording: false, end: () => null };

/** Start the `process <queue>` span of a claimed task's attempt (see the header for its parent and links). */
export function startAttempt(task: ClaimedTask): AttemptSpan {
  const first = task.attempt <= 1 && !task.previousTrace;
  const parent = first ? contextOfTrace(task.traceParent, task.traceState) : null;
  const links: Link[] = [];
  if (!first) {
    const enqueued = linkTo(task.traceParent, 'enqueue');
    if (enqueued) links.push(enqueued);
    const previous = linkTo(task.previousTrace, 'previous_attempt');
    if (previous) links.push(previous);
  }
  for (const p of task.parentTraces ?? []) {
    const l = linkTo(p, 'parent');
    if (l) links.push(l);
  }
  const span = tracer.startSpan(`process ${task.queue}`, { kind: SpanKind.CONSUMER, root: parent === null, links }, parent ?? ROOT_CONTEXT);
  if (!span.isRecording()) return UNTRACED;
  span.setAttributes({
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': task.queue,
    'messaging.message.id': task.token,
    'messaging.client.id': task.workerId,
    'readpast.task.kind': task.kind,
    'readpast.task.command': task.kind === 'sql' ? 'sql' : task.command,
    'readpast.attempt': task.attempt,
    'readpast.max_attempts': task.maxAttempts,
    'readpast.worker.id': task.workerId,
  });
  return {
    context: trace.setSpan(ROOT_CONTEXT, span),
    recording: true,
    end: (settlement, err) => endAttempt(span, settlement, err),
  };
}

function endAttempt(span: Span, s: Settlement, err: unknown): string | null {
  const outcome = s.kind === 'retry' || s.kind === 'dead' ? s.outcome : s.kind;
  span.setAttribute('readpast.outcome', outcome);
  if (s.kind === 'retry' || s.kind === 'dead') span.setAttribute('readpast.task.status', s.kind === 'retry' ? 'pending' : 'dead');
  // given back (a start the pool undid): pending again with nothing counted, no failure
  if (s.kind === 'given_back') span.setAttribute('readpast.task.status', 'pending');
  // suspended (a durable handler's sleep or event wait): waiting, no failure
  else if (s.kind === 'suspended') span.setAttribute('readpast.task.status', 'waiting');
  else if (s.kind !== 'succeeded') {
    // the handler's own error when it threw one; a stop (timeout, cancel, lease lost, shutdown) under its own name
    const type = outcome === 'failed' ? undefined : `readpast.${outcome}`;
    recordFailure(span, err ?? new Error(s.error?.message ?? outcome), type);
  }
  span.end();
  return formatTraceparent(span.spanContext());
}

/**
 * Run a sql or procedure task's database work in its span (`fn` gets the reporter the store tells its facts to).
 * Not recording: `fn(undefined)`, and the store samples nothing.
 */
export async function withDbSpan<T>(
  attempt: AttemptSpan,
  work: { kind: 'sql' | 'procedure'; text: string },
  fn: (db: DbSpanReporter | undefined) => Promise<T>,
): Promise<T> {
  if (!attempt.recording) return fn(undefined);
  const summary = work.kind === 'procedure' ? `EXEC ${work.text}` : statementSummary(work.text);
  const attrs: Attributes =
    work.kind === 'procedure'
      ? { 'db.operation.name': 'EXEC', 'db.stored_procedure.name': work.text, 'db.query.summary': summary }
      : { ...(summary && { 'db.query.summary': summary }), ...(statementsTraced() && { 'db.query.text': work.text }) };
  const span = tracer.startSpan(summary || 'sql', { kind: SpanKind.CLIENT, attributes: attrs }, attempt.context);
  const reporter: DbSpanReporter = { report: (f) => span.setAttributes(dbAttributes(f)) };
  try {
    return await context.with(trace.setSpan(attempt.context, span), () => fn(reporter));
  } catch (err) {
    recordFailure(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** A store's facts → the database span's attributes (db.* of the conventions, the rest under readpast.db.*). */
export function dbAttributes(f: DbFacts): Attributes {
  const a: Attributes = {};
  if (f.system) a['db.system.name'] = f.system;
  if (f.namespace) a['db.namespace'] = f.namespace;
  if (f.serverAddress) a['server.address'] = f.serverAddress;
  if (f.session !== undefined && f.session !== null) a['readpast.db.session'] = f.session;
  if (f.waitType) a['readpast.db.wait_type'] = f.waitType;
  if (f.waitMs !== undefined && f.waitMs !== null) a['readpast.db.wait_ms'] = f.waitMs;
  if (f.blockedBy?.length) a['readpast.db.blocking_sessions'] = f.blockedBy;
  return a;
}
