// GET /api/stats: counts by status per queue, totals, workers.
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  return json(await readpast.stats());
});
