// Typed commands for library users (types only). A team declares its handlers once —
//   const rp = await openReadpast({ handlers: { 'billing.invoice': async (p: { id: number }) => ({ ok: true }) } });
// and every `rp.enqueue({ command, payload })` is checked against them: an unknown command or a payload of
// the wrong shape does not compile, and `rp.status(token)` of a token that enqueue returned has the
// handler's result type. A Readpast opened without `handlers` takes anything (it is validated at run time).
import type { HandlerContext } from '../engine/handlers';
import type { EnqueueResult, ParentFailurePolicy, TaskKind } from '../engine/types';
import type { EnqueueRequest } from '../engine/validation';
import type { StatusJson } from './present';

/** A handler as a team writes it: what its payload parameter accepts is what enqueue accepts. */
export type TypedHandler<P = any, R = unknown> = (payload: P, ctx: HandlerContext) => R | Promise<R>;

/** Handlers by command name. */
export type HandlerMap = Record<string, TypedHandler>;

/** The handler map of a Readpast opened without `handlers`: any command, any payload. */
export type UntypedHandlers = Record<string, TypedHandler>;

/** The built-in handlers (always registered), typed as they are validated. */
export interface BuiltinHandlers {
  'demo.sleep': TypedHandler<{ ms?: number } | undefined, { slept: number }>;
  'demo.fail': TypedHandler<{ message?: string; number?: number } | undefined, never>;
  'demo.flaky': TypedHandler<{ failTimes?: number } | undefined, { succeededOnAttempt: number }>;
  'demo.echo': TypedHandler<unknown, unknown>;
  'demo.progress': TypedHandler<{ steps?: number; ms?: number } | undefined, { steps: number }>;
  'demo.durable': TypedHandler<
    | {
        steps?: number;
        ms?: number;
        sleepMs?: number;
        event?: string;
        match?: Record<string, string | number | boolean | null>;
        timeoutMs?: number;
      }
    | undefined,
    { steps: number; event: unknown }
  >;
}

export type PayloadOf<F> = F extends (payload: infer P, ...rest: never[]) => unknown ? P : never;
export type ResultOf<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

/** Whether H is a declared set of handlers (not any string). */
type Declared<H> = string extends keyof H ? false : true;

/** The handlers a Readpast opened with H knows: H and the built-ins (or any, when H declares none). */
export type WithBuiltins<H> = Declared<H> extends true ? H & BuiltinHandlers : UntypedHandlers;

/** The command names H declares (any string when it declares none). */
export type CommandOf<H> = Declared<H> extends true ? keyof H & string : string;

/** An enqueue's options besides the task itself (queue, priority, runAt, maxAttempts, dedupKey, batch …). */
export type TaskOptions = Omit<EnqueueRequest, 'kind' | 'command' | 'payload'>;

type PayloadField<P> = undefined extends P ? { payload?: P } : { payload: P };

/** A handler task of command C, its payload typed by C's handler. */
export type HandlerTask<H, C extends keyof H> = TaskOptions & { kind?: 'handler'; command: C } & PayloadField<PayloadOf<H[C]>>;

/** The kinds of task that run no handler: a `sql` batch, a stored `procedure` (SQL Server). */
export type SqlKind = Exclude<TaskKind, 'handler'>;

/** A `sql` batch or a stored `procedure` (SQL Server): its text or name, and parameters. */
export type SqlTask = TaskOptions & { kind: SqlKind; command: string; payload?: unknown };

/**
 * What enqueue accepts, one shape per call (no overloads, so a mistake is reported at the field that is wrong:
 * the payload's, or the command naming the declared ones): the handler task of command C when the handlers
 * are declared, a `sql` or `procedure` task when `kind` (K) says so; anything when no handlers are declared
 * (checked at run time).
 */
export type EnqueueArg<H, C extends CommandOf<H>, K extends TaskKind = 'handler'> =
  Declared<H> extends true ? (K extends SqlKind ? SqlTask & { kind: K } : HandlerTask<H, C & keyof H>) : unknown;

declare const commandOfToken: unique symbol;

/** A task token (uuid) that remembers, for the type checker only, which command it was enqueued with. */
export type TaskToken<C extends string = string> = string & { readonly [commandOfToken]?: C };

/** `status` of a task whose result type is known. */
export type TypedStatusJson<R> = Omit<StatusJson, 'result'> & { result: R | null };

/** What enqueue returns: the token carries the command when the handlers are declared. */
export type EnqueueResultOf<H, C extends string> =
  Declared<H> extends true ? Omit<EnqueueResult, 'token'> & { token: TaskToken<C> } : EnqueueResult;

/** What enqueue returns for a task of kind K and command C: a `sql` or `procedure` task's token is plain. */
export type EnqueueReturn<H, C extends string, K> = K extends SqlKind ? EnqueueResult : EnqueueResultOf<H, C>;

/** What status returns for a token of command C (never: not known, e.g. a plain string). */
export type StatusOf<H, C> = [C] extends [never] ? StatusJson : C extends keyof H ? TypedStatusJson<ResultOf<H[C]>> : StatusJson;

// ---- flows ------------------------------------------------------------------------------------------

/** A flow node's own fields: its id within the flow and its parents by id, each with its policy. */
export interface FlowNodeFields {
  id: string;
  dependsOn?: readonly (string | { id: string; onParentFailure?: ParentFailurePolicy | undefined })[] | undefined;
  onParentFailure?: ParentFailurePolicy | undefined;
}

/** A node's task options: an enqueue's, but no dedup key and no batch (the flow orders its nodes). */
export type NodeTaskOptions = Omit<TaskOptions, 'dedupKey' | 'batchId' | 'stage' | 'dependsOn' | 'onParentFailure'>;

/** A node running the handler of command C, its payload typed by it. */
export type HandlerNode<H, C extends keyof H> = FlowNodeFields &
  NodeTaskOptions & { kind?: 'handler'; command: C } & PayloadField<PayloadOf<H[C]>>;

/** A node running a `sql` batch or a stored `procedure`. */
export type SqlNode = FlowNodeFields & NodeTaskOptions & { kind: SqlKind; command: string; payload?: unknown };

/**
 * A flow node for a Readpast with handlers H (as `openReadpast({ handlers })` declared them; the built-ins
 * added): a node of a declared command with its payload, or a `sql` / `procedure` node. Without declared
 * handlers, any node (checked at run time). For a list of nodes built in code: `const nodes: FlowNode<typeof handlers>[]`.
 */
export type FlowNode<H = UntypedHandlers> =
  Declared<H> extends true
    ? { [C in keyof WithBuiltins<H> & string]: HandlerNode<WithBuiltins<H>, C> }[keyof WithBuiltins<H> & string] | SqlNode
    : FlowNodeFields & Record<string, unknown>;

/** What a node may look like before it is checked: its kind and command read as written (literals kept). */
export type FlowNodeShape<H> = { id: string; kind?: TaskKind | undefined; command: CommandOf<H> | (string & {}) };

type NodeKeys = keyof FlowNodeFields | keyof NodeTaskOptions | 'kind' | 'command' | 'payload';

/** Whether node T is one H takes: its command's payload, and no field a node does not have. */
type ValidNode<H, T> = T extends FlowNode<H> ? (Exclude<keyof T, NodeKeys> extends never ? true : false) : false;

/** The type node T is checked against when it is not valid: its command's node, or any command's for an unknown one. */
type ExpectedNode<H, T> = T extends { kind: SqlKind }
  ? SqlNode
  : T extends { command: infer C }
    ? C extends keyof H & string
      ? HandlerNode<H, C>
      : HandlerNode<H, keyof H & string>
    : HandlerNode<H, keyof H & string>;

/** The nodes N as written where valid, each invalid one replaced by what it should be (so the error is at its field). */
type CheckedNodes<H, N extends readonly unknown[]> = { [I in keyof N]: ValidNode<H, N[I]> extends true ? N[I] : ExpectedNode<H, N[I]> };

/** Whether every node of N is valid (a node with a field too many is still assignable to its expected type). */
type AllValid<H, N extends readonly unknown[]> = false extends { [I in keyof N]: ValidNode<H, N[I]> }[number] ? false : true;

/**
 * What `flow` accepts: with declared handlers each node is typed by its command as enqueue is (an unknown
 * command, a wrong payload or a field a node does not take does not compile, reported at that node's field);
 * without, anything (checked at run time).
 */
export type FlowArg<H, N extends readonly unknown[]> =
  Declared<H> extends true
    ? {
        name?: string | undefined;
        /** the policy of every edge that names none (default cancel) */
        onParentFailure?: ParentFailurePolicy | undefined;
        nodes: AllValid<H, N> extends true ? N : CheckedNodes<H, N>;
      }
    : unknown;

/**
 * Declare handlers apart from openReadpast and keep their types (and `ctx` typed as HandlerContext):
 *   export const handlers = defineHandlers({ 'billing.invoice': async (p: { id: number }, ctx) => … });
 */
export function defineHandlers<const H extends HandlerMap>(handlers: H): H {
  return handlers;
}
