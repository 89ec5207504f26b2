// Route-handler plumbing: bounded JSON bodies, zod-checked query strings, and one mapping of
// errors to statuses (ValidationError 400 naming the field, NotFoundError 404, ConflictError 409).
import { asActor } from '../api/audit';
import { oneBigAtATime } from './big-requests';
import { serverConfig } from './config';
import { requestIdentity } from './guard';
import { actorName, type Identity } from './identity';
import { z } from 'zod';
import { illFormedError, parseWith } from '@/lib/engine/validation';
import { ValidationError } from '@/lib/engine/errors';
import { serverLogger } from './log';
import { isShuttingDown, RETRY_AFTER_SECONDS, SHUTTING_DOWN_MESSAGE } from './shutdown';

export const MAX_BODY_BYTES = 1024 * 1024;
/** POST /api/flows: a flow of 10,000 nodes with edges and payloads needs more than 1 MiB (under the proxy's 10 MiB) */
export const MAX_FLOW_BODY_BYTES = 8 * 1024 * 1024;

/** An error that already knows its HTTP status (413, 401, 503…). */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: string;
  field?: string;
}

/**
 * Errors are matched by name, not instanceof: Next.js bundles instrumentation and each route
 * separately, so the engine that threw may come from another copy of the same module.
 */
export function describeError(err: unknown): { status: number; body: ErrorBody } {
  const e = err as { name?: unknown; message?: unknown; field?: unknown; status?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  switch (e?.name) {
    case 'ValidationError': {
      const field = typeof e.field === 'string' && e.field ? e.field : undefined;
      return { status: 400, body: field ? { error: message, field } : { error: message } };
    }
    case 'NotFoundError':
      return { status: 404, body: { error: message } };
    case 'ConflictError':
      return { status: 409, body: { error: message } };
    case 'HttpError': {
      const field = typeof e.field === 'string' ? e.field : undefined;
      return { status: Number(e.status) || 500, body: field ? { error: message, field } : { error: message } };
    }
    case 'ShuttingDownError':
      return { status: 503, body: { error: SHUTTING_DOWN_MESSAGE } };
  }
  // a request caught by the graceful stop (its store closing under it) is not a failure of the server
  if (isShuttingDown()) return { status: 503, body: { error: SHUTTING_DOWN_MESSAGE } };
  serverLogger().error({ err }, 'request failed');
  return { status: 500, body: { error: 'internal error (see the server log)' } };
}

const NO_STORE = { 'cache-control': 'no-store' };

export function json(data: unknown, status = 200): Response {
  return Response.json(data, { status, headers: NO_STORE });
}

export function errorResponse(err: unknown): Response {
  const { status, body } = describeError(err);
  if (status !== 503) return json(body, status);
  return Response.json(body, { status, headers: { ...NO_STORE, 'retry-after': String(RETRY_AFTER_SECONDS) } });
}

/** Wrap a route handler so every thrown error becomes its JSON error response. */
export function handle<A extends unknown[]>(fn: (...args: A) => Promise<Response>): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    if (isShuttingDown()) return errorResponse(new HttpError(503, SHUTTING_DOWN_MESSAGE));
    try {
      // the proxy has let this request in (proxy.ts); who it is becomes the actor of what it changes
      const req = args[0];
      if (!(req instanceof Request)) return await asActor({ name: 'unknown', source: 'api' }, () => fn(...args));
      const user = await requestUser(req);
      // a big body waits for the big requests before it (big-requests.ts)
      return await oneBigAtATime(req, () => asActor({ name: user, source: 'api' }, () => fn(...args)));
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/** Who a request (already let in by the proxy) is, as the guard sees it; null when it proves nothing. */
export async function requestIdentityOf(req: Request): Promise<Identity | null> {
  const h = req.headers;
  const facts = { method: req.method, api: true, authorization: h.get('authorization'), host: h.get('host'), origin: h.get('origin') };
  return (await requestIdentity({ ...facts, cookie: h.get('cookie') }, serverConfig())).identity;
}

async function requestUser(req: Request): Promise<string> {
  try {
    const identity = await requestIdentityOf(req);
    return identity ? actorName(identity) : 'unknown';
  } catch {
    return 'unknown';
  }
}

const tooLarge = (max: number) => new HttpError(413, `request body larger than ${max} bytes`, 'body');

/**
 * The W3C trace context a request carries (`traceparent`, `tracestate` headers): what an enqueue continues
 * (lib/api/trace-enqueue.ts; an invalid one is ignored there).
 */
export function traceHeaders(req: Request): { traceparent: string | null; tracestate: string | null } {
  return { traceparent: req.headers.get('traceparent'), tracestate: req.headers.get('tracestate') };
}

/** The request body as JSON, at most `max` bytes (MAX_BODY_BYTES); malformed or missing JSON is a 400 naming `body`. */
export async function readJson(req: Request, max = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(req.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) throw tooLarge(max);
  if (!req.body) throw new ValidationError('body', 'a JSON body is required');
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new ValidationError('body', 'a JSON body is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ValidationError('body', `malformed JSON (${(err as Error).message})`);
  }
  // a string that is not Unicode (lib/engine/text.ts) can only come as a `\uD800`-style escape: bytes that are
  // not UTF-8 were read as U+FFFD above
  if (SURROGATE_ESCAPE.test(text)) {
    const illFormed = illFormedError(value);
    if (illFormed) throw illFormed;
  }
  return value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

export async function readBody<T extends z.ZodType>(req: Request, schema: T): Promise<z.output<T>> {
  return parseWith(schema, await readJson(req));
}

/** Query parameters checked by `schema` (unknown parameters are ignored); a bad one is a 400 naming it. */
export function readQuery<T extends z.ZodType>(req: Request, schema: T): z.output<T> {
  const params: Record<string, string> = {};
  for (const [k, v] of new URL(req.url).searchParams) if (v !== '') params[k] = v;
  return parseWith(schema, params);
}

// ---- query building blocks -----------------------------------------------------------------

/** An integer query parameter in [min, max]; its messages state the bound (an id's is just "positive"). */
export const intParam = (min: number, max: number) => {
  const unbounded = max >= Number.MAX_SAFE_INTEGER;
  const rule = unbounded && min === 1 ? 'must be a positive integer' : `must be an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(/^-?\d+$/, rule)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, unbounded ? rule : `at least ${min}`)
        .max(max, unbounded ? 'too large' : `at most ${max}`),
    );
};

/** a row id (task, attempt, batch) */
export const idParam = intParam(1, Number.MAX_SAFE_INTEGER);
export const cursorParam = idParam;
export const limitParam = intParam(1, 500);
export const textParam = z.string().max(200);
export const dateParam = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

/** Route params: Next.js 16 passes them as a promise. */
export type Params<T> = { params: Promise<T> };

/**
 * A JSON body that may be left out: a request without one (HTTP: neither Content-Length nor
 * Transfer-Encoding), or with an empty one, reads as `{}`.
 */
export async function readOptionalJson(req: Request): Promise<unknown> {
  const length = req.headers.get('content-length');
  const none = length === null && req.headers.get('transfer-encoding') === null;
  if (req.body === null || none || length === '0') return {};
  return readJson(req);
}
