// GET /api/tasks/{token}: the task and its attempts (as `readpast status --json`). DELETE: remove a finished task.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

type Ctx = Params<{ token: string }>;

export const GET = handle(async (_req: Request, { params }: Ctx) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.status(token));
});

export const DELETE = handle(async (_req: Request, { params }: Ctx) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json({ status: await readpast.deleteTask(token) });
});
