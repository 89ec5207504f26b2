// POST /api/batches/{id}/tasks: add tasks to an open batch. The body is one enqueue request (with its
// `stage`, 0-based) or `{ tasks: [...], stage? }`; the batch is the one in the path. 201 {tokens}.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson, traceHeaders, type Params } from '@/lib/server/http';
import { addBatchTasks, batchIdParam } from '@/lib/api/batches';

export const dynamic = 'force-dynamic';

export const POST = handle(async (req: Request, { params }: Params<{ id: string }>) => {
  const id = batchIdParam((await params).id);
  const body = await readJson(req);
  const { readpast, config } = await getEngine();
  return json(await addBatchTasks(readpast, id, body, { caller: 'api', allowSql: config.allowSql, ...traceHeaders(req) }), 201);
});
