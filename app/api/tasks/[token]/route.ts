// GET /api/tasks/{token}: the task and its attempts (as `readpast status --json`). DELETE: remove a finished task.
// PATCH {payload?, queue?, priority?, runAt?, maxAttempts?, retry?}: edit a task that is not running (409 while
// it runs); `retry: true` also puts a dead or cancelled one back to pending. Returns {result, task}.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson, type Params } from '@/lib/server/http';

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

export const PATCH = handle(async (req: Request, { params }: Ctx) => {
  const { token } = await params;
  const body = await readJson(req);
  const { readpast } = await getEngine();
  return json(await readpast.editTask(token, body));
});
