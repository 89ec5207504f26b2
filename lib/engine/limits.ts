// The bounds and patterns a request is checked against, in one place: the server validation
// (validation.ts, procedures.ts, lib/server), the CLI and the dashboard's client-side checks
// all read them from here. Bundled into browser code, so this module imports nothing and needs
// no server runtime: plain numbers, strings, bigints and regular expressions only.

// ---- names ---------------------------------------------------------------------------------------

/** The longest queue name, in characters. */
export const MAX_QUEUE_NAME_LENGTH = 64;

/** A queue name: starts with a letter or digit, then letters, digits, `_ . : -`; at most MAX_QUEUE_NAME_LENGTH. */
export const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** The characters a queue name may hold, in words (for messages). */
export const QUEUE_NAME_CHARS = 'letters, digits, . _ : -';

/** What a queue name may be, in words: `letters, digits, . _ : - (max 64)`. */
export const QUEUE_NAME_RULE = `${QUEUE_NAME_CHARS} (max ${MAX_QUEUE_NAME_LENGTH})`;

/** The longest handler name, in characters. */
export const MAX_HANDLER_NAME_LENGTH = 128;

/** A handler name: starts with a letter, then letters, digits, `_ . : -`; at most MAX_HANDLER_NAME_LENGTH. */
export const HANDLER_NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,127}$/;

/** A stored procedure name: `name` or `schema.name`, each part a regular identifier or `[bracketed]`, ≤ 128 characters. */
export const PROCEDURE_NAME = /^(\[[^\]]{1,128}\]|[A-Za-z_][A-Za-z0-9_@$#]{0,127})(\.(\[[^\]]{1,128}\]|[A-Za-z_][A-Za-z0-9_@$#]{0,127}))?$/;

// ---- a task --------------------------------------------------------------------------------------

/** The largest task payload, in bytes of its UTF-8 JSON text. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/** The largest task result (and durable step result), in bytes of its UTF-8 JSON text. */
export const MAX_RESULT_BYTES = 64 * 1024;

/** The longest `sql` task command, in characters. */
export const MAX_SQL_CHARS = 64 * 1024;

/** Task priority range (higher runs first; the default is 0). */
export const MIN_PRIORITY = -1000;
export const MAX_PRIORITY = 1000;

/** Range of a task's `maxAttempts` (without one, the queue's default applies). */
export const MIN_ATTEMPTS = 1;
export const MAX_ATTEMPTS = 100;

/** Range of a task's `timeoutMs`: 1 ms to 7 days. */
export const MIN_TIMEOUT_MS = 1;
export const MAX_TIMEOUT_MS = 7 * 24 * 3600 * 1000;

/** The longest dedup key, in characters. */
export const MAX_DEDUP_KEY_LENGTH = 200;

// `runAt` has no bound: any ISO-8601 date-time with an offset (a past one runs at once).

// ---- queues, batches, bulk calls -----------------------------------------------------------------

/**
 * Range of a queue's concurrency limit (null = unlimited; 1 = singleton). SQL Server creates a
 * limited queue's tokens from a 10,000-row tally, so the maximum cannot grow past that alone.
 */
export const MIN_CONCURRENCY_LIMIT = 1;
export const MAX_CONCURRENCY_LIMIT = 10_000;

/** The longest concurrency key, in characters (binary-compared, like queue names). */
export const MAX_CONCURRENCY_KEY_LENGTH = 200;

/** Range of a queue's per-key limit: running tasks of one concurrency key (null = none). */
export const MIN_PER_KEY_LIMIT = 1;
export const MAX_PER_KEY_LIMIT = 10_000;

/** The longest `keyFrom` JSON path, in characters. */
export const MAX_KEY_FROM_LENGTH = 200;

/** Range of a queue's rate limit: at most `limit` attempts start in any window of `periodSeconds`. */
export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 1_000_000;
export const MIN_RATE_PERIOD_SECONDS = 1;
export const MAX_RATE_PERIOD_SECONDS = 86_400;

/** Range of a batch's `maxParallel` (null = no cap). */
export const MIN_BATCH_PARALLEL = 1;
export const MAX_BATCH_PARALLEL = 10_000;

/** Range of a task's stage within its batch (default 0). */
export const MIN_STAGE = 0;
export const MAX_STAGE = 10_000;

/** The most tasks one bulk call may add (`enqueueMany`, `POST /api/batches/{id}/tasks`). */
export const MAX_BULK = 10_000;

/** Bulk actions on tasks (lib/api/bulk.ts): tokens per store transaction, tokens one selection may list, tasks one filter may touch. */
export const BULK_CHUNK = 500;
export const MAX_BULK_TOKENS = 1000;
export const MAX_BULK_FILTER = 100_000;

// ---- worker pools --------------------------------------------------------------------------------

/** The most tasks one worker pool runs at once (its concurrency, and the most it may be resized to). */
export const MAX_POOL_SIZE = 256;

/** The most workers the dashboard's in-process pool may run (READPAST_WORKERS, the pool size form). */
export const MAX_DASHBOARD_WORKERS = 64;

/** Padded base64 text (whitespace removed first), as binary / varbinary values are sent. */
export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** withTransaction: how long a transaction may stay open by default, and at most (see TransactionOptions). */
export const TRANSACTION_TIMEOUT_MS = 10_000;
export const MAX_TRANSACTION_TIMEOUT_MS = 20_000;

/** The audit trail is kept this long (pruned with the tasks, whatever their retention). */
export const AUDIT_KEEP_MS = 90 * 24 * 3600 * 1000;

/** a task depends on at most this many tasks (dependsOn) */
export const MAX_PARENTS = 1000;

/** a flow has at most this many nodes (rp.flow) */
export const MAX_FLOW_NODES = 10_000;

/** a flow node's id: letters, digits and . _ : - (max 100) */
export const MAX_FLOW_NODE_ID_LENGTH = 100;
export const FLOW_NODE_ID = /^[A-Za-z0-9_.:-]{1,100}$/;

/** a flow's optional name */
export const MAX_FLOW_NAME_LENGTH = 200;

/** a task's page lists at most this many parents and children each */
export const MAX_LINKS_SHOWN = 200;

// ---- durable handlers (types/durable.ts) -----------------------------------------------------------

/** A task records at most this many steps. */
export const MAX_STEPS_PER_TASK = 1000;

/** The longest step name, in characters. */
export const MAX_STEP_NAME_LENGTH = 200;

/** An event name: starts with a letter or digit, then letters, digits, `_ . : / -`; at most 200 characters. */
export const EVENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$/;
export const EVENT_NAME_RULE = 'letters, digits, . _ : / - (max 200)';

/** The largest event payload, in bytes of its UTF-8 JSON text (a step's result is bounded like a task's). */
export const MAX_EVENT_PAYLOAD_BYTES = 64 * 1024;

/** An event match has at most this many fields, each a scalar. */
export const MAX_MATCH_FIELDS = 20;

/** The longest sleep or event timeout: a year. */
export const MAX_SLEEP_MS = 366 * 24 * 3600 * 1000;
