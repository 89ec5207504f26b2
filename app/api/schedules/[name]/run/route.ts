// POST /api/schedules/{name}/run: fire once now, outside the cron (also while paused) → 201 {token, schedule};
// the task carries schedule: {name, fireAt, manual: true}.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';
import { changedBy } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ name: string }>) => {
  const { name } = await params;
  const { readpast, config } = await getEngine();
  return json(await readpast.runSchedule(name, changedBy(config, 'api')), 201);
});
