// GET /api/tasks?status=&queue=&batch=&stage=&q=&cursor=&limit=: tasks newest first, keyset-paginated.
// POST /api/tasks: enqueue one task.
import { z } from 'zod';
import { TASK_STATUSES } from '@/lib/engine/types';
import { queueName } from '@/lib/engine/validation';
import { getEngine } from '@/lib/server/engine';
import { cursorParam, idParam, handle, intParam, json, limitParam, readJson, readQuery, textParam } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  queue: queueName.optional(),
  batch: idParam.optional(),
  stage: intParam(0, 1_000_000).optional(),
  q: textParam.optional(),
  cursor: cursorParam.optional(),
  limit: limitParam.default(50),
});

export const GET = handle(async (req: Request) => {
  const { batch, ...rest } = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.tasks({ ...rest, batchId: batch }));
});

/** 201 for a new task; 200 when `dedupKey` matched a task that is not finished yet (its token). */
export const POST = handle(async (req: Request) => {
  const body = await readJson(req);
  const { readpast, config } = await getEngine();
  const r = await readpast.enqueue(body, { caller: 'api', allowSql: config.allowSql });
  return json({ token: r.token, created: r.created }, r.created ? 201 : 200);
});
