// POST /api/tasks/{token}/kill: KILL the SQL Server session running a sql or procedure task (operator
// option; the login needs ALTER ANY CONNECTION). The attempt is recorded as cancelled.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (_req: Request, { params }: Params<{ token: string }>) => {
  const { token } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.killSession(token));
});
