// POST /api/tasks/{token}/cancel: a pending task is cancelled; a running one is asked to stop.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ token: string }>) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json({ status: await readpast.cancel(token) });
});
