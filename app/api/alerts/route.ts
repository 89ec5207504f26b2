// GET /api/alerts: every alert rule (secrets shown as `••••` + last 4). POST /api/alerts {name, kind, queue?,
// command?, schedule?, thresholdMs?, count?, url, secret?, format?, dedupMs?, enabled?}: a new rule → 201;
// 400 naming the field, 409 for a taken name.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  return json(await readpast.alerts.list());
});

export const POST = handle(async (req: Request) => {
  const body = await readJson(req);
  const { readpast } = await getEngine();
  return json(await readpast.alerts.create(body), 201);
});
