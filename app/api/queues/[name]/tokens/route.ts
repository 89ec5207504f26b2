// GET /api/queues/{name}/tokens: the queue's concurrency tokens and their grants (grantee task,
// worker, session, granted at; grants held by dead workers flagged).
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';
import { queueNameParam } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, { params }: Params<{ name: string }>) => {
  const name = queueNameParam((await params).name);
  const { readpast } = await getEngine();
  return json({ tokens: await readpast.tokens(name) });
});
