// Validating a bulk enqueue: the same rules as validateEnqueue (validation.ts), paid per chunk where they can be.
// A task of the common shape — a plain object of the known fields, a handler task, no runAt — is checked by a
// direct test that accepts only what the zod schema accepts and yields the same EnqueueInput; anything else
// (another kind, a runAt, a field out of range, an unknown field) goes through validateEnqueue itself, so every
// rejection and its message are the ones of the single enqueue. Whether a handler is known is asked once per name.
import {
  MAX_ATTEMPTS,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_DEDUP_KEY_LENGTH,
  MAX_PAYLOAD_BYTES,
  MAX_PRIORITY,
  MAX_STAGE,
  MAX_TIMEOUT_MS,
  MIN_ATTEMPTS,
  MIN_PRIORITY,
  MIN_STAGE,
  MIN_TIMEOUT_MS,
  QUEUE_NAME,
} from './limits';
import { wellFormed } from './text';
import { Slices } from './slices';
import type { EnqueueInput } from './types';
import { validateEnqueue, type EnqueueContext } from './validation';

const FIELDS = new Set([
  'kind',
  'command',
  'payload',
  'queue',
  'priority',
  'runAt',
  'maxAttempts',
  'timeoutMs',
  'dedupKey',
  'concurrencyKey',
  'batchId',
  'stage',
]);

const intIn = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/** undefined, or an integer in [min, max] */
const optionalInt = (v: unknown, min: number, max: number) => v === undefined || intIn(v, min, max);

/**
 * A handler task of the common shape, or null when it is anything else (then validateEnqueue decides). `known`:
 * the handler name is known (asked by the caller).
 */
function fastHandlerTask(
  raw: unknown,
  ctx: EnqueueContext,
  known: (name: string) => boolean | Promise<boolean>,
  skip: ReadonlySet<string> | null,
) {
  if (typeof raw !== 'object' || raw === null) return null;
  const proto = Object.getPrototypeOf(raw);
  if (proto !== Object.prototype && proto !== null) return null;
  const r = raw as Record<string, unknown>;
  for (const k in r) if (!FIELDS.has(k) && !skip?.has(k)) return null;
  if (Object.getOwnPropertySymbols(r).length) return null;
  if (r.kind !== undefined && r.kind !== 'handler') return null;
  if (!ctx.kinds.includes('handler')) return null;
  const { command, queue, priority, dedupKey, batchId, stage } = r;
  if (typeof command !== 'string' || command.length === 0 || command.trim() !== command) return null;
  if (queue !== undefined && (typeof queue !== 'string' || !QUEUE_NAME.test(queue))) return null;
  if (priority !== undefined && !intIn(priority, MIN_PRIORITY, MAX_PRIORITY)) return null;
  if (r.runAt !== undefined) return null;
  if (!optionalInt(r.maxAttempts, MIN_ATTEMPTS, MAX_ATTEMPTS) || !optionalInt(r.timeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS)) return null;
  if (dedupKey !== undefined && (typeof dedupKey !== 'string' || dedupKey.length < 1 || dedupKey.length > MAX_DEDUP_KEY_LENGTH))
    return null;
  const key = r.concurrencyKey;
  if (key !== undefined && (typeof key !== 'string' || key.length < 1 || key.length > MAX_CONCURRENCY_KEY_LENGTH)) return null;
  if (batchId !== undefined && !intIn(batchId, 1, Number.MAX_SAFE_INTEGER)) return null;
  if (!optionalInt(stage, MIN_STAGE, MAX_STAGE) || (stage !== undefined && batchId === undefined)) return null;
  // a string that is not well-formed Unicode: refused by validateEnqueue, which names it (text.ts)
  if (!wellFormed(command) || (typeof dedupKey === 'string' && !wellFormed(dedupKey)) || (typeof key === 'string' && !wellFormed(key)))
    return null;
  const payload = r.payload ?? null;
  if (payload !== null) {
    let text: string | undefined;
    try {
      text = JSON.stringify(payload);
    } catch {
      return null;
    }
    if (text === undefined) return null;
    // JSON.stringify writes a lone surrogate as an escape (`\ud800`), and a pair as it is
    if (text.includes('\\ud')) return null;
    if (text.length * 3 > MAX_PAYLOAD_BYTES && Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) return null;
  }
  return { command, known: known(command), input: { r, payload } };
}

/**
 * Validate many raw enqueue requests (`prefix.i` names a field of the i-th): the results of validateEnqueue, in order.
 * `skip`: fields that are not the task's and are left out (a flow node's id and edges, read by lib/engine/flows.ts).
 */
export async function validateEnqueueMany(
  raws: unknown[],
  ctx: EnqueueContext,
  prefix: string,
  skip: ReadonlySet<string> | null = null,
): Promise<EnqueueInput[]> {
  const knownNames = new Map<string, boolean>();
  const known = (name: string): boolean | Promise<boolean> => {
    const k = knownNames.get(name);
    if (k !== undefined) return k;
    const v = ctx.knowsHandler(name);
    if (typeof v === 'boolean') knownNames.set(name, v);
    return v;
  };
  const out: EnqueueInput[] = [];
  // thousands of tasks: the event loop runs between slices of them
  const slices = new Slices();
  for (let i = 0; i < raws.length; i++) {
    if ((i & 63) === 63 && slices.due) await slices.pause();
    const fast = fastHandlerTask(raws[i], ctx, known, skip);
    let isKnown = fast?.known;
    if (isKnown instanceof Promise) {
      isKnown = await isKnown;
      knownNames.set(fast!.command, isKnown);
    }
    if (!fast || !isKnown) {
      // anything unusual, and every rejection, the way a single enqueue sees it
      out.push(await validateEnqueue(skip ? without(raws[i], skip) : raws[i], ctx, `${prefix}.${i}`));
      continue;
    }
    const { r, payload } = fast.input;
    const batchId = r.batchId as number | undefined;
    out.push({
      kind: 'handler',
      command: fast.command,
      payload,
      queue: (r.queue as string | undefined) ?? 'default',
      priority: (r.priority as number | undefined) ?? 0,
      runAt: undefined,
      maxAttempts: r.maxAttempts as number | undefined,
      timeoutMs: r.timeoutMs as number | undefined,
      dedupKey: (r.dedupKey as string | undefined) ?? null,
      concurrencyKey: (r.concurrencyKey as string | undefined) ?? null,
      caller: ctx.caller ?? null,
      batchId: batchId ?? null,
      stage: batchId === undefined ? null : ((r.stage as number | undefined) ?? 0),
    });
  }
  return out;
}

/** an object's own fields but those in `skip` (anything else as it is) */
function without(raw: unknown, skip: ReadonlySet<string>): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([k]) => !skip.has(k)));
}
