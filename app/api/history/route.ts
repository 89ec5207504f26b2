// GET /api/history?range=15m|1h|24h|7d|30d&queue=&command=: buckets of the range from the per-minute rollups.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readQuery } from '@/lib/server/http';
import { historyRequest } from '@/lib/api/history';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request) => {
  const q = readQuery(req, historyRequest);
  const { readpast } = await getEngine();
  return json(await readpast.history(q));
});
