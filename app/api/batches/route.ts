// GET /api/batches?status=&cursor=&limit=: batches newest first with per-stage counts, keyset-paginated.
// POST /api/batches {maxParallel?, onFailure?}: create a batch (open: it takes tasks until released).
import { z } from 'zod';
import { batchJson } from '@/lib/engine/present';
import { getEngine } from '@/lib/server/engine';
import { cursorParam, handle, intParam, json, readQuery } from '@/lib/server/http';
import { readOptionalJson } from '@/lib/server/batches';

export const dynamic = 'force-dynamic';

const query = z.object({
  status: z.enum(['open', 'released', 'completed', 'aborted', 'cancelled']).optional(),
  cursor: cursorParam.optional(),
  limit: intParam(1, 200).default(50),
});

export const GET = handle(async (req: Request) => {
  const filter = readQuery(req, query);
  const { readpast } = await getEngine();
  const page = await readpast.store.listBatches(filter);
  return json({ items: page.items.map(batchJson), nextCursor: page.nextCursor });
});

export const POST = handle(async (req: Request) => {
  const body = await readOptionalJson(req);
  const { readpast } = await getEngine();
  return json(await readpast.createBatch(body, 'api'), 201);
});
