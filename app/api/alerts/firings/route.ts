// GET /api/alerts/firings?cursor=&limit=&rule=: fired alerts newest first, each with its delivery task's
// token and status → {items, next}; pass `next` as `cursor` for the following page.
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request) => {
  const query = Object.fromEntries([...new URL(req.url).searchParams].filter(([, v]) => v !== ''));
  const { readpast } = await getEngine();
  return json(await readpast.alerts.firings(query));
});
