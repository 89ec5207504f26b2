// GET /api/events/{id}: one event with the tasks it resumed (those still kept).
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const { id } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.event(id));
});
