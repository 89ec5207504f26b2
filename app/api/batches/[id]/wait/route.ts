// GET /api/batches/{id}/wait?stage=&timeoutMs=: long-poll until the stage (and those before it), or
// the whole batch, is terminal: {done: true, batch, tasks} with the tasks' outcomes; or
// {done: false, batch} once timeoutMs (0–60000, default 25000) has passed. A client that goes away
// ends the wait.
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { handle, intParam, json, readQuery, type Params } from '@/lib/server/http';
import { batchIdParam } from '@/lib/server/batches';
import { DEFAULT_WAIT_MS, MAX_STAGE, MAX_WAIT_MS } from '@/lib/server/schemas';

export const dynamic = 'force-dynamic';
export const maxDuration = 60;

const query = z.object({
  stage: intParam(0, MAX_STAGE).optional(),
  timeoutMs: intParam(0, MAX_WAIT_MS).default(DEFAULT_WAIT_MS),
});

export const GET = handle(async (req: Request, { params }: Params<{ id: string }>) => {
  const id = batchIdParam((await params).id);
  const { stage, timeoutMs } = readQuery(req, query);
  const { readpast } = await getEngine();
  const r = await readpast.waitBatch(id, { stage, timeoutMs, signal: req.signal });
  return json(r.done ? r : { done: false, batch: r.batch });
});
