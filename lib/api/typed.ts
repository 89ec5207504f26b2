// Typed commands for library users (types only). A team declares its handlers once —
//   const rp = await openReadpast({ handlers: { 'billing.invoice': async (p: { id: number }) => ({ ok: true }) } });
// and every `rp.enqueue({ command, payload })` is checked against them: an unknown command or a payload of
// the wrong shape does not compile, and `rp.status(token)` of a token that enqueue returned has the
// handler's result type. A Readpast opened without `handlers` takes anything (it is validated at run time).
import type { HandlerContext } from '../engine/handlers';
import type { EnqueueResult } from '../engine/types';
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

/** A `sql` batch or a stored `procedure` (SQL Server): its text or name, and parameters. */
export type SqlTask = TaskOptions & { kind: 'sql' | 'procedure'; command: string; payload?: unknown };

/**
 * What enqueue accepts for command C: its handler task when the handlers are declared (a `sql` or
 * `procedure` task goes through enqueue's second signature), else anything (checked at run time).
 */
export type EnqueueArg<H, C extends CommandOf<H>> = Declared<H> extends true ? HandlerTask<H, C & keyof H> : unknown;

declare const commandOfToken: unique symbol;

/** A task token (uuid) that remembers, for the type checker only, which command it was enqueued with. */
export type TaskToken<C extends string = string> = string & { readonly [commandOfToken]?: C };

/** `status` of a task whose result type is known. */
export type TypedStatusJson<R> = Omit<StatusJson, 'result'> & { result: R | null };

/** What enqueue returns: the token carries the command when the handlers are declared. */
export type EnqueueResultOf<H, C extends string> =
  Declared<H> extends true ? Omit<EnqueueResult, 'token'> & { token: TaskToken<C> } : EnqueueResult;

/** What status returns for a token of command C (never: not known, e.g. a plain string). */
export type StatusOf<H, C> = [C] extends [never] ? StatusJson : C extends keyof H ? TypedStatusJson<ResultOf<H[C]>> : StatusJson;

/**
 * Declare handlers apart from openReadpast and keep their types (and `ctx` typed as HandlerContext):
 *   export const handlers = defineHandlers({ 'billing.invoice': async (p: { id: number }, ctx) => … });
 */
export function defineHandlers<const H extends HandlerMap>(handlers: H): H {
  return handlers;
}
