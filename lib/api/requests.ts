// Request shapes shared by route handlers, server actions and lib/api helpers (zod).
import { z } from 'zod';
import { MAX_BULK, MAX_CONCURRENCY_LIMIT, MAX_DASHBOARD_WORKERS, MAX_STAGE, MIN_CONCURRENCY_LIMIT, MIN_STAGE } from '../engine/limits';
import { intIn, queueName } from '../engine/validation';

/** Which dead tasks / failures an operator acts on; empty = all. */
export const failureFilter = z.strictObject({
  queue: queueName.optional(),
  /** exact last error message */
  message: z.string().min(1).max(4000).optional(),
  /** substring of command or error message */
  q: z.string().min(1).max(200).optional(),
  /** failure fingerprint (lib/engine/fingerprint.ts) */
  fingerprint: z
    .string()
    .regex(/^[0-9a-f]{16}$/, 'not a failure fingerprint (16 hex digits)')
    .optional(),
  /** exact command */
  command: z.string().min(1).max(4000).optional(),
});

export const poolSize = intIn(0, MAX_DASHBOARD_WORKERS);

export const poolBody = z.strictObject({ workers: poolSize });

// ---- queues: limits and pause ------------------------------------------------------------------

/** null = unlimited; 1 = singleton */
export const concurrencyLimit = z.union([intIn(MIN_CONCURRENCY_LIMIT, MAX_CONCURRENCY_LIMIT), z.null()]);

/** a queue's `paused` or a schedule's `enabled` */
export const pausedFlag = z.boolean();

// ---- batches -----------------------------------------------------------------------------------

/** a batch id passed to a server action */
export const batchIdArg = intIn(1, Number.MAX_SAFE_INTEGER);

/** a batch id in a URL path */
export const batchIdSegment = z
  .string()
  .regex(/^\d{1,16}$/, 'not a batch id (a positive integer)')
  .transform(Number)
  .pipe(batchIdArg);

/** `POST /api/batches/{id}/tasks` in its bulk form: tasks, and the stage of those that name none */
export const batchTasksBody = z.strictObject({
  tasks: z.array(z.unknown()).min(1, 'give at least one task').max(MAX_BULK, `at most ${MAX_BULK} per call`),
  stage: intIn(MIN_STAGE, MAX_STAGE).optional(),
});

/** how long `GET /api/batches/{id}/wait` may hold the request */
export const MAX_WAIT_MS = 60_000;
export const DEFAULT_WAIT_MS = 25_000;

/** A URL path segment as its text: decoded when it still is percent-encoded, kept as is when that encoding is invalid. */
export function decodeSegment(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // not valid percent-encoding: validated as is
  }
}
