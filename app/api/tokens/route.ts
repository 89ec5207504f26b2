// GET /api/tokens?queue=: concurrency tokens and their grants, of one queue or of every limited queue.
import { z } from 'zod';
import { queueName } from '@/lib/engine/validation';
import { getEngine } from '@/lib/server/engine';
import { handle, json, readQuery } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({ queue: queueName.optional() });

export const GET = handle(async (req: Request) => {
  const { queue } = readQuery(req, query);
  const { readpast } = await getEngine();
  return json({ tokens: await readpast.tokens(queue) });
});
