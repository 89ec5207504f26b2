// GET /api/queues/{name}/keys?limit=N: the queue's concurrency keys with running or pending tasks, most
// running first, then most pending ({keys: [{key, running, pending}]}, top N: 1–100, default 5), and its rate
// window ({rate: {limit, periodSeconds, perKey, started, nextAt} | null}; ?key=K: key K's window of a per-key rate).
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';
import { queueNameParam } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request, { params }: Params<{ name: string }>) => {
  const name = queueNameParam((await params).name);
  const q = new URL(req.url).searchParams;
  const { readpast } = await getEngine();
  const [keys, rate] = await Promise.all([readpast.queueKeys(name, q.get('limit') ?? undefined), readpast.rateWindow(name, q.get('key'))]);
  return json({ keys, rate });
});
