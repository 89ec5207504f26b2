// GET /api/queues/{name}/why: the queue's health — pending split (ready / scheduled / retrying), the oldest
// ready task's age, whether no live worker serves it, and `why` ({reason, detail, text}; null when nothing
// is pending). 404 for an unknown queue.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';
import { queueNameParam } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

type Ctx = Params<{ name: string }>;

export const GET = handle(async (_req: Request, { params }: Ctx) => {
  const name = queueNameParam((await params).name);
  const { readpast } = await getEngine();
  return json(await readpast.queueWhy(name));
});
