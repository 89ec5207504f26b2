// GET /api/flows/{id}: the flow with its counts by status, its nodes (by task id: node id, token, status,
// command, attempts, times, last error) and its edges (parent and child tokens, policy). 404 for an unknown id.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.getFlow(id));
});
