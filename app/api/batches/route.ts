// GET /api/batches?status=&cursor=&limit=: batches newest first with per-stage counts, keyset-paginated.
// POST /api/batches {maxParallel?, onFailure?}: create a batch (open: it takes tasks until released).
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { cursorParam, handle, intParam, json, readQuery } from '@/lib/server/http';
import { readOptionalJson } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({
  status: z.enum(['open', 'released', 'completed', 'aborted', 'cancelled']).optional(),
  cursor: cursorParam.optional(),
  limit: intParam(1, 200).default(50),
});

export const GET = handle(async (req: Request) => {
  const filter = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.batches(filter));
});

export const POST = handle(async (req: Request) => {
  const body = await readOptionalJson(req);
  const { readpast } = await getEngine();
  return json(await readpast.createBatch(body, 'api'), 201);
});
