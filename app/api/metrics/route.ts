// GET /api/metrics?minutes=15: one point per second (throughput, latency, depth) from the kept aggregate.
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { handle, intParam, json, readQuery } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({ minutes: intParam(1, 60).default(15) });

export const GET = handle(async (req: Request) => {
  const { minutes } = readQuery(req, query);
  const { readpast } = await getEngine();
  const until = new Date();
  const since = new Date(until.getTime() - minutes * 60_000);
  return json(await readpast.metrics(since, until));
});
