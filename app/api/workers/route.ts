// GET /api/workers: every worker process and session, this process's pool, live-status availability.
import { getEngine, poolInfo } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const engine = await getEngine();
  return json({ ...(await engine.readpast.workers()), pool: poolInfo(engine) });
});
