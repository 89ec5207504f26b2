// Every enqueue of the front door (one task, many, a flow; alone or in a caller's transaction) runs in its `send`
// span (lib/engine/tracing.ts) and its tasks store that span's context. A caller's own context — the `traceparent`
// and `tracestate` of an HTTP request, of the environment (the CLI), or given by a library user — is its parent;
// otherwise the active span is. No SDK and no given context: the tasks store nothing.
import { givenTraceContext, startSend, traced } from '../engine/tracing';
import type { EnqueueInput, EnqueueResult, FlowInput, FlowResult, TraceContext } from '../engine/types';

/** A caller's W3C trace context (EnqueueOptions): its parent; an invalid one is ignored. */
export interface TraceOptions {
  traceparent?: string | null;
  tracestate?: string | null;
}

const withTrace = (input: EnqueueInput, trace: TraceContext | null): EnqueueInput => (trace ? { ...input, trace } : input);

/** The one queue of these tasks, or null when they go to several. */
function queueOf(inputs: readonly EnqueueInput[]): string | null {
  const q = inputs[0]?.queue ?? 'default';
  return inputs.every((i) => (i.queue ?? 'default') === q) ? q : null;
}

const tokenOf = (r: EnqueueResult) => [r.token];
const tokensOf = (rs: EnqueueResult[]) => rs.map((r) => r.token);

/** The span attribute naming one task's command (a sql task's text is not an attribute). */
const commandAttrs = (input: EnqueueInput) => ({ 'readpast.task.command': input.kind === 'sql' ? 'sql' : input.command });

/** Enqueue one task (one call of the store) in a `send` span; it stores the span's context. */
export function sendTask(
  input: EnqueueInput,
  opts: TraceOptions,
  write: (input: EnqueueInput) => Promise<EnqueueResult>,
): Promise<EnqueueResult> {
  const send = startSend(input.queue ?? 'default', 1, givenTraceContext(opts.traceparent, opts.tracestate), commandAttrs(input));
  return traced(send, (trace) => write(withTrace(input, trace)), tokenOf);
}

/** Enqueue `inputs` (one call of the store) in a `send` span; each task stores its context. */
export function sendTasks(
  inputs: EnqueueInput[],
  opts: TraceOptions,
  write: (inputs: EnqueueInput[]) => Promise<EnqueueResult[]>,
): Promise<EnqueueResult[]> {
  const first = inputs[0];
  const attrs = inputs.length === 1 && first ? commandAttrs(first) : undefined;
  const send = startSend(queueOf(inputs), inputs.length, givenTraceContext(opts.traceparent, opts.tracestate), attrs);
  return traced(send, (trace) => write(trace ? inputs.map((i) => withTrace(i, trace)) : inputs), tokensOf);
}

/** Create a flow in a `send` span; each node's task stores its context. */
export function sendFlow(input: FlowInput, opts: TraceOptions, write: (input: FlowInput) => Promise<FlowResult>): Promise<FlowResult> {
  const tasks = input.nodes.map((n) => n.task);
  const attrs = { 'readpast.flow.nodes': input.nodes.length, ...(input.name && { 'readpast.flow.name': input.name }) };
  const send = startSend(queueOf(tasks), tasks.length, givenTraceContext(opts.traceparent, opts.tracestate), attrs);
  return traced(
    send,
    (trace) => write(trace ? { ...input, nodes: input.nodes.map((n) => ({ ...n, task: withTrace(n.task, trace) })) } : input),
    (r) => Object.values(r.tokens),
  );
}
