// GET /api/tasks/counts?queue=: the Tasks page's tab counts — per state from the kept counts, pending split
// into ready / scheduled / retrying — overall or for one queue.
import { z } from 'zod';
import { queueName } from '@/lib/engine/validation';
import { getEngine } from '@/lib/server/engine';
import { handle, json, readQuery } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({ queue: queueName.optional() });

export const GET = handle(async (req: Request) => {
  const { queue } = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.taskCounts(queue));
});
