// withTransaction: the caller's own statements and the tasks it enqueues, committed together or rolled
// back together. Each command is validated here exactly as Readpast.enqueue validates it; the store runs
// the transaction (db/<dialect>/transaction.ts). A call that fails — validation included — dooms the
// transaction: later calls are refused and it rolls back even if the callback caught the error (on SQL
// Server the server has already rolled it back: XACT_ABORT).
import { ValidationError } from '../engine/errors';
import { MAX_BULK, MAX_TRANSACTION_TIMEOUT_MS } from '../engine/limits';
import type { Store, StoreTransaction } from '../engine/ports';
import { sendFlow, sendTask, sendTasks, type TraceOptions } from './trace-enqueue';
import type {
  EnqueueInput,
  EnqueueResult,
  ExecuteParams,
  ExecuteResult,
  FlowInput,
  FlowResult,
  TaskKind,
  TransactionOptions,
} from '../engine/types';
import type { CommandOf, EnqueueArg, EnqueueReturn, FlowArg, FlowNodeShape, HandlerMap, UntypedHandlers } from './typed';

export type { TransactionOptions };

/** How Readpast validates one enqueue request (`path` prefixes field names in errors). */
export type EnqueueValidator<O> = (raw: unknown, opts: O, path?: string) => Promise<EnqueueInput>;

/** How Readpast validates a flow (lib/engine/flows.ts). */
export type FlowValidator<O> = (raw: unknown, opts: O) => Promise<FlowInput>;

/**
 * What the callback of `rp.withTransaction` gets. Await each call before the next (they run in turn anyway).
 * `H`: the Readpast's handlers, which type `enqueue` and `flow` as on the Readpast itself (lib/api/typed.ts).
 */
export interface ReadpastTransaction<O, H extends HandlerMap = UntypedHandlers> {
  /**
   * Run one statement of the caller's in the transaction. Parameters: SQLite positional (`?`, an array)
   * or named (`@name`, an object); SQL Server named only (`@name`, an object). A named object with
   * `@name` works on both.
   */
  execute<Row = Record<string, unknown>>(sql: string, params?: ExecuteParams): Promise<ExecuteResult<Row>>;
  /** enqueue one task in the transaction (validated as `rp.enqueue`); it exists only if the transaction commits */
  enqueue<C extends CommandOf<H>, K extends TaskKind = 'handler'>(raw: EnqueueArg<H, C, K>, opts?: O): Promise<EnqueueReturn<H, C, K>>;
  /** enqueue many in the transaction (validated as `rp.enqueueMany`), results in input order */
  enqueueMany(raws: unknown[], opts?: O): Promise<EnqueueResult[]>;
  /** create a whole flow in the transaction (validated as `rp.flow`): `{ flowId, tokens }` */
  flow<N extends readonly FlowNodeShape<H>[] | []>(raw: FlowArg<H, N>, opts?: O): Promise<FlowResult>;
}

export async function withTransaction<T, O>(
  store: Store,
  validate: EnqueueValidator<O>,
  fn: (tx: ReadpastTransaction<O>) => Promise<T>,
  opts: TransactionOptions = {},
  validateFlow?: FlowValidator<O>,
): Promise<T> {
  const t = opts.timeoutMs;
  if (t !== undefined && (!Number.isInteger(t) || t < 1 || t > MAX_TRANSACTION_TIMEOUT_MS)) {
    throw new ValidationError('timeoutMs', `an integer from 1 to ${MAX_TRANSACTION_TIMEOUT_MS}`);
  }
  return store.commands.transaction(async (stx: StoreTransaction) => {
    let failed: { err: unknown } | null = null;
    const guard = async <R>(call: () => Promise<R>): Promise<R> => {
      if (failed) throw new Error('withTransaction: an earlier call failed; the transaction will be rolled back', { cause: failed.err });
      try {
        return await call();
      } catch (err) {
        failed ??= { err };
        throw err;
      }
    };
    const tx: ReadpastTransaction<O> = {
      execute: (sql, params) => guard(() => stx.execute(sql, params)),
      enqueue: (raw, o = {} as O) => guard(async () => sendTask(await validate(raw, o), o as TraceOptions, (input) => stx.enqueue(input))),
      enqueueMany: (raws, o = {} as O) =>
        guard(async () => {
          if (!Array.isArray(raws)) throw new ValidationError('tasks', 'must be an array');
          if (raws.length > MAX_BULK) throw new ValidationError('tasks', `at most ${MAX_BULK} per call`);
          const inputs: EnqueueInput[] = [];
          for (let i = 0; i < raws.length; i++) inputs.push(await validate(raws[i], o, `tasks.${i}`));
          return sendTasks(inputs, o as TraceOptions, (traced) => stx.enqueueMany(traced));
        }),
      flow: (raw, o = {} as O) =>
        guard(async () => {
          if (!validateFlow) throw new Error('withTransaction: flows are not available here');
          return sendFlow(await validateFlow(raw, o), o as TraceOptions, (input) => stx.createFlow(input));
        }),
    };
    const out = await fn(tx);
    const f = failed as { err: unknown } | null;
    if (f) throw f.err;
    return out;
  }, opts);
}
