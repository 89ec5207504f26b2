// GET /api/history/queues?range=1h|24h: succeeded per queue and bucket (the Queues page's sparklines).
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { handle, json, readQuery } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.strictObject({ range: z.enum(['1h', '24h']).default('1h') });

export const GET = handle(async (req: Request) => {
  const q = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.queueSparklines(q));
});
