// GET /api/log?outcome=&queue=&batch=&q=&from=&to=&cursor=&limit=: ExecutionLog, every attempt, newest
// first, keyset-paginated.
import { z } from 'zod';
import { OUTCOMES } from '@/lib/engine/types';
import { queueName } from '@/lib/engine/validation';
import { getEngine } from '@/lib/server/engine';
import { cursorParam, idParam, dateParam, handle, json, limitParam, readQuery, textParam } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({
  outcome: z.enum(OUTCOMES).optional(),
  queue: queueName.optional(),
  batch: idParam.optional(),
  q: textParam.optional(),
  from: dateParam.optional(),
  to: dateParam.optional(),
  cursor: cursorParam.optional(),
  limit: limitParam.default(50),
});

export const GET = handle(async (req: Request) => {
  const { batch, ...rest } = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.attempts({ ...rest, batchId: batch }));
});
