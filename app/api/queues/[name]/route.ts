// GET /api/queues/{name}: one queue as GET /api/queues lists it.
// PATCH /api/queues/{name} {concurrencyLimit?: number|null, paused?: boolean}: change its limit live
// (raising takes effect on the next claim, lowering never stops running tasks) or pause / resume it;
// each change is recorded with who made it.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson, type Params } from '@/lib/server/http';
import { changedBy, queueNameParam } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

type Ctx = Params<{ name: string }>;

export const GET = handle(async (_req: Request, { params }: Ctx) => {
  const name = queueNameParam((await params).name);
  const { readpast } = await getEngine();
  return json(await readpast.queue(name));
});

export const PATCH = handle(async (req: Request, { params }: Ctx) => {
  const name = queueNameParam((await params).name);
  const body = await readJson(req);
  const { readpast, config } = await getEngine();
  return json(await readpast.setQueue(name, body, changedBy(config, 'api')));
});
