// GET /api/queues/{name}/changes?limit=: the queue's recorded limit / pause changes, newest first.
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { handle, intParam, json, readQuery, type Params } from '@/lib/server/http';
import { DEFAULT_CHANGES_LISTED, MAX_CHANGES_LISTED } from '@/lib/api/queues';
import { queueNameParam } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

const query = z.object({ limit: intParam(1, MAX_CHANGES_LISTED).default(DEFAULT_CHANGES_LISTED) });

export const GET = handle(async (req: Request, { params }: Params<{ name: string }>) => {
  const name = queueNameParam((await params).name);
  const { limit } = readQuery(req, query);
  const { readpast } = await getEngine();
  return json({ changes: await readpast.queueChanges(name, limit) });
});
