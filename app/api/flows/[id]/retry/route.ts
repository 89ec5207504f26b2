// POST /api/flows/{id}/retry: retry the flow's dead nodes and those cancelled other than by a parent; the
// children they cancelled are re-armed (back to waiting): {retried}. 404 for an unknown id.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.retryFlow(id));
});
