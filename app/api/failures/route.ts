// GET /api/failures: dead tasks grouped by failure fingerprint (error number + normalised message), command
// and queue — largest first, paged with `cursor` (the `nextCursor` of the page before) — and the newest dead
// (poison) tasks, each with its fingerprint.
import { z } from 'zod';
import { queueName } from '@/lib/engine/validation';
import { getEngine } from '@/lib/server/engine';
import { handle, json, readQuery, textParam } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({
  queue: queueName.optional(),
  message: z.string().max(4000).optional(),
  q: textParam.optional(),
  fingerprint: z
    .string()
    .regex(/^[0-9a-f]{16}$/, 'not a failure fingerprint (16 hex digits)')
    .optional(),
  command: z.string().min(1).max(4000).optional(),
  cursor: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const GET = handle(async (req: Request) => {
  const filter = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.failures(filter));
});
