// Request shapes shared by route handlers and server actions.
import { z } from 'zod';
import { queueName } from '@/lib/engine/validation';

export const MAX_POOL_SIZE = 64;

/** Which dead tasks / failures an operator acts on; empty = all. */
export const failureFilter = z.strictObject({
  queue: queueName.optional(),
  /** exact last error message */
  message: z.string().min(1).max(4000).optional(),
  /** substring of command or error message */
  q: z.string().min(1).max(200).optional(),
});

export const poolSize = z.number().int('must be an integer').min(0).max(MAX_POOL_SIZE);

export const poolBody = z.strictObject({ workers: poolSize });

// ---- queues: limits and pause ------------------------------------------------------------------

export const MAX_CONCURRENCY_LIMIT = 10_000;

/** null = unlimited; 1 = singleton */
export const concurrencyLimit = z.union([
  z.number().int('must be an integer').min(1, 'must be at least 1').max(MAX_CONCURRENCY_LIMIT),
  z.null(),
]);

export const pausedFlag = z.boolean();

// ---- batches -----------------------------------------------------------------------------------

/** a batch id passed to a server action */
export const batchIdArg = z.number().int('must be an integer').positive('must be a positive integer').max(Number.MAX_SAFE_INTEGER);

/** a batch id in a URL path */
export const batchIdSegment = z.string().regex(/^\d{1,16}$/, 'not a batch id (a positive integer)').transform(Number).pipe(batchIdArg);

export const MAX_STAGE = 10_000;
export const MAX_BATCH_TASKS_PER_CALL = 10_000;

/** `POST /api/batches/{id}/tasks` in its bulk form: tasks, and the stage of those that name none */
export const batchTasksBody = z.strictObject({
  tasks: z.array(z.unknown()).min(1, 'give at least one task').max(MAX_BATCH_TASKS_PER_CALL, `at most ${MAX_BATCH_TASKS_PER_CALL} per call`),
  stage: z.number().int('must be an integer').min(0).max(MAX_STAGE).optional(),
});

/** how long `GET /api/batches/{id}/wait` may hold the request */
export const MAX_WAIT_MS = 60_000;
export const DEFAULT_WAIT_MS = 25_000;
