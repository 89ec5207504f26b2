// POST /api/flows/{id}/cancel: every waiting and pending node is cancelled (their children's policies apply),
// running ones are asked to stop: {cancelled, cancelRequested}. 404 for an unknown id.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.cancelFlow(id));
});
