// GET /api/batches/{id}: the batch with per-stage counts, and its first 500 tasks by stage then id.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';
import { batchDetail, batchIdParam } from '@/lib/api/batches';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const id = batchIdParam((await params).id);
  const { readpast } = await getEngine();
  return json(await batchDetail(readpast, id));
});
