// POST /api/batches/{id}/cancel: the batch's pending tasks are cancelled, running ones asked to stop.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';
import { batchIdParam } from '@/lib/api/batches';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const id = batchIdParam((await params).id);
  const { readpast } = await getEngine();
  return json(await readpast.cancelBatch(id));
});
