// GET /api/schedules: every schedule with its expression in words, next and last fire, and its last
// 20 fires (newest first). POST /api/schedules {name, cron, timezone?, kind?, command, payload?, queue?,
// priority?, maxAttempts?, timeoutMs?, misfire?, overlap?, enabled?}: a new schedule → 201 with its next
// 5 fire times; 400 naming the field (a bad expression names `cron`, a bad zone `timezone`), 409 for a taken name.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson } from '@/lib/server/http';
import { changedBy } from '@/lib/server/queues';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  return json(await readpast.schedules());
});

export const POST = handle(async (req: Request) => {
  const body = await readJson(req);
  const { readpast, config } = await getEngine();
  return json(await readpast.createSchedule(body, changedBy(config, 'api'), { allowSql: config.allowSql }), 201);
});
