// GET /api/batches/{id}/timeline: the batch's attempts from ExecutionLog, oldest first (at most 5,000),
// for the per-stage timeline chart.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';
import { batchIdParam, batchTimeline } from '@/lib/api/batches';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, { params }: Params<{ id: string }>) => {
  const id = batchIdParam((await params).id);
  const { readpast } = await getEngine();
  return json(await batchTimeline(readpast, id));
});
