// GET /api/tasks/{token}/steps: a durable handler's recorded steps in order — name, kind (step, transaction,
// sleep, event), status, the attempt that ran it, times, result (or a preview past 4 KiB) or error, replays.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, { params }: Params<{ token: string }>) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.steps(token));
});
