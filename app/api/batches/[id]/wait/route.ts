// GET /api/batches/{id}/wait?stage=&timeoutMs=: long-poll until the stage (and those before it), or
// the whole batch, is terminal: {done: true, batch, tasks} with the tasks' outcomes; or
// {done: false, batch} once timeoutMs (0–60000, default 25000) has passed. A client that goes away
// ends the wait.
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { handle, intParam, json, readQuery, type Params } from '@/lib/server/http';
import { batchIdParam } from '@/lib/api/batches';
import { DEFAULT_WAIT_MS, MAX_WAIT_MS } from '@/lib/api/requests';
import { MAX_STAGE, MIN_STAGE } from '@/lib/engine/limits';

export const dynamic = 'force-dynamic';
export const maxDuration = 60;

const query = z.object({
  stage: intParam(MIN_STAGE, MAX_STAGE).optional(),
  timeoutMs: intParam(0, MAX_WAIT_MS).default(DEFAULT_WAIT_MS),
});

export const GET = handle(async (req: Request, { params }: Params<{ id: string }>) => {
  const id = batchIdParam((await params).id);
  const { stage, timeoutMs } = readQuery(req, query);
  const { readpast } = await getEngine();
  const r = await readpast.waitBatch(id, { stage, timeoutMs, signal: req.signal });
  return json(r.done ? r : { done: false, batch: r.batch });
});
