// GET /api/flows?unfinished=1|0&cursor=&limit=: flows newest first (keyset on id; limit 1–200, default 50) with
// their counts by status. POST /api/flows {name?, onParentFailure?, nodes: [{id, command, …, dependsOn?}]}:
// create the whole graph in one transaction (≤ 10,000 nodes, a body up to 8 MiB): 201 {flowId, tokens}.
// A `traceparent` header: the trace its tasks continue. A cycle, an unknown id or a self-edge is a 400 naming the
// node (`nodes.3.dependsOn.0`) or the cycle's ids.
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { cursorParam, handle, intParam, json, MAX_FLOW_BODY_BYTES, readJson, readQuery, traceHeaders } from '@/lib/server/http';
import { FLOW_PAGE_DEFAULT, FLOW_PAGE_MAX } from '@/lib/api/flows';

export const dynamic = 'force-dynamic';

const query = z.object({
  unfinished: z
    .enum(['1', '0', 'true', 'false'], { message: 'must be 1 or 0' })
    .transform((v) => v === '1' || v === 'true')
    .optional(),
  cursor: cursorParam.optional(),
  limit: intParam(1, FLOW_PAGE_MAX).default(FLOW_PAGE_DEFAULT),
});

export const GET = handle(async (req: Request) => {
  const filter = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.flows(filter));
});

export const POST = handle(async (req: Request) => {
  const body = await readJson(req, MAX_FLOW_BODY_BYTES);
  const { readpast, config } = await getEngine();
  return json(await readpast.flow(body, { caller: 'api', allowSql: config.allowSql, ...traceHeaders(req) }), 201);
});
