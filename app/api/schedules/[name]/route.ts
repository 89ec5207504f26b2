// GET /api/schedules/{name}: one schedule with its next 5 fire times and last 50 fires (newest first).
// PATCH /api/schedules/{name} {…fields to change}: takes effect from the next tick; `{enabled: false}` pauses,
// `{enabled: true}` resumes. A schedule declared in code takes only `enabled` (409 otherwise: change it in
// the code). DELETE /api/schedules/{name}: the schedule goes, the tasks it fired stay (409 for one declared in code).
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson, type Params } from '@/lib/server/http';
import { changedBy } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

type Ctx = Params<{ name: string }>;

export const GET = handle(async (_req: Request, { params }: Ctx) => {
  const { name } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.schedule(name));
});

export const PATCH = handle(async (req: Request, { params }: Ctx) => {
  const { name } = await params;
  const body = await readJson(req);
  const { readpast, config } = await getEngine();
  return json(await readpast.updateSchedule(name, body, changedBy(config, 'api'), { allowSql: config.allowSql }));
});

export const DELETE = handle(async (_req: Request, { params }: Ctx) => {
  const { name } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.deleteSchedule(name));
});
