// POST /api/alerts/{id}/test: send a test delivery now (also while the rule is disabled) → 201
// {firing, token}; the delivery is a task of queue readpast.alerts (retried like any task).
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.alerts.test(id), 201);
});
