// GET /api/alerts/{id}: one rule with its newest firings. PATCH /api/alerts/{id} {…fields to change}
// (`secret` left out keeps it, null removes it). DELETE /api/alerts/{id}: the rule goes, its firings stay.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

type Ctx = Params<{ id: string }>;

export const GET = handle(async (_req: Request, { params }: Ctx) => {
  const { id } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.alerts.show(id));
});

export const PATCH = handle(async (req: Request, { params }: Ctx) => {
  const { id } = await params;
  const body = await readJson(req);
  const { readpast } = await getEngine();
  return json(await readpast.alerts.update(id, body));
});

export const DELETE = handle(async (_req: Request, { params }: Ctx) => {
  const { id } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.alerts.remove(id));
});
