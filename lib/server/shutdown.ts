// Whether this server process is stopping (SIGTERM / SIGINT: the pool's graceful stop, then exit). Kept on
// globalThis: route handlers, server actions and instrumentation are separate bundles of one process.
// While it stops, every request is answered 503 with Retry-After, and nothing is logged per request.

const KEY = Symbol.for('readpast.server.shuttingDown');
type Holder = { [KEY]?: number };

/** seconds a client is told to wait (Retry-After) before it asks again: the graceful stop's length */
export const RETRY_AFTER_SECONDS = 10;

export const SHUTTING_DOWN_MESSAGE = 'the server is shutting down; try again in a few seconds';

/** What getEngine throws once the server is stopping; answered 503 with Retry-After (lib/server/http.ts). */
export class ShuttingDownError extends Error {
  override readonly name = 'ShuttingDownError';
  readonly status = 503;
  constructor() {
    super(SHUTTING_DOWN_MESSAGE);
  }
}

/** Mark the process as stopping; true the first time. */
export function markShuttingDown(): boolean {
  const g = globalThis as Holder;
  if (g[KEY]) return false;
  g[KEY] = Date.now();
  return true;
}

export function isShuttingDown(): boolean {
  return !!(globalThis as Holder)[KEY];
}
