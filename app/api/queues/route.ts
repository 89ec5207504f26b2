// GET /api/queues: every queue with its concurrency limit, pause state, pending, running and granted
// tokens, its throttle (perKeyLimit, keyFrom, rateLimit, `rate`: the window now {limit, periodSeconds,
// perKey, started, nextAt}, `keys`: its top 5 concurrency keys {key, running, pending}), and the recent
// changes, newest first.
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  return json(await readpast.queues());
});
