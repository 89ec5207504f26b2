// GET /api/tasks/{token}/why: why the task is not running — {reason, detail, text}, `reason` one of ready,
// workers_busy, scheduled, retrying, paused, limit_full, key_full, rate_limited, stage_wait, no_worker
// (not_pending for a task that is running or finished, the text saying its state); 404 for an unknown token.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

type Ctx = Params<{ token: string }>;

export const GET = handle(async (_req: Request, { params }: Ctx) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.why(token));
});
