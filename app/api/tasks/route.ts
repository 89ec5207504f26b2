// GET /api/tasks?status=&sub=&queue=&command=&batch=&stage=&priorityMin=&priorityMax=&from=&to=&q=&payload=&cursor=&limit=:
// tasks newest first, keyset-paginated (the filters: lib/api/task-query.ts); a filter no index answers examines
// a bounded number of rows and then answers `partial: true` with a cursor to go on. A bad filter is a 400
// naming it. POST /api/tasks: enqueue one task (a `traceparent` header: the trace it continues).
import { parseTaskQuery } from '@/lib/api/task-query';
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson, traceHeaders } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request) => {
  const filter = parseTaskQuery(new URL(req.url).searchParams);
  const { readpast } = await getEngine();
  return json(await readpast.tasks(filter));
});

/** 201 for a new task; 200 when `dedupKey` matched a task that is not finished yet (its token). */
export const POST = handle(async (req: Request) => {
  const body = await readJson(req);
  const { readpast, config } = await getEngine();
  const r = await readpast.enqueue(body, { caller: 'api', allowSql: config.allowSql, ...traceHeaders(req) });
  return json({ token: r.token, created: r.created }, r.created ? 201 : 200);
});
