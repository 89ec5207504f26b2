// Requests with a big body — a flow of thousands of nodes, thousands of tasks at once — are served one at a time.
// Reading, parsing, validating and writing one is a second or so of work on the thread that serves every page;
// the work is cut into slices (lib/engine/slices.ts, db/sqlite/big-write.ts), but twenty such requests at once
// would still take their slices in turns with each other, and a page asked meanwhile would wait for twenty
// slices at every step of its own. So they queue here, first come first served, before their body is read (one
// parsed body in memory at a time, too), while every other request goes straight on.
// Kept on globalThis: route handlers are separate bundles of one process.

/** From this many bytes a request body is big (an undeclared length counts as big). */
export const BIG_BODY_BYTES = 256 * 1024;

const KEY = Symbol.for('readpast.server.bigRequests');
type Holder = { [KEY]?: { tail: Promise<void> } };

/** Whether a request brings a big body. */
export function isBig(req: Request): boolean {
  if (req.method === 'GET' || req.method === 'HEAD' || req.body === null) return false;
  const declared = req.headers.get('content-length');
  return declared === null || !(Number(declared) < BIG_BODY_BYTES);
}

/** Run `fn` when the big requests before it are done (at once for a request that is not big). */
export async function oneBigAtATime<T>(req: Request, fn: () => Promise<T>): Promise<T> {
  if (!isBig(req)) return fn();
  const g = globalThis as Holder;
  const line = (g[KEY] ??= { tail: Promise.resolve() });
  let done!: () => void;
  const mine = new Promise<void>((r) => (done = r));
  const before = line.tail;
  line.tail = before.then(() => mine);
  await before;
  try {
    return await fn();
  } finally {
    done();
  }
}
