// GET /api/queues/{name}: one queue as GET /api/queues lists it (limits, rate window, top keys).
// PATCH /api/queues/{name} {concurrencyLimit?: number|null, paused?: boolean, perKeyLimit?: number|null,
// keyFrom?: string|null (a JSON path like $.customerId), rateLimit?: {limit, periodSeconds, perKey?}|null}:
// change its limits live (raising takes effect on the next claim, lowering never stops running tasks), pause /
// resume it, or set its throttle; each change is recorded with who made it. A bad field: 400 naming it.
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
