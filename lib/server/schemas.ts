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
