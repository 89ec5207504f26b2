// GET /api/failures: recent failures grouped by error message, and the newest dead (poison) tasks.
import { z } from 'zod';
import { queueName } from '@/lib/engine/validation';
import { getEngine } from '@/lib/server/engine';
import { handle, json, readQuery, textParam } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({
  queue: queueName.optional(),
  message: z.string().max(4000).optional(),
  q: textParam.optional(),
});

export const GET = handle(async (req: Request) => {
  const filter = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.failures(filter));
});
