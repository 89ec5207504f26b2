// POST /api/tasks/{token}/retry: a dead or cancelled task runs again.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ token: string }>) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json({ status: await readpast.retry(token) });
});
