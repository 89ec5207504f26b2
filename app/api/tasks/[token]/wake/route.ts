// POST /api/tasks/{token}/wake: a sleeping task, or one waiting for an event, resumes now (its sleep or wait
// returns null); 409 when it is neither. Audited `task.wake`.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ token: string }>) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json({ status: await readpast.wake(token) });
});
