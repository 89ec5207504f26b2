// GET /api/procedures/{name}/parameters: a stored procedure's parameters (SQL Server), for typed enqueue forms.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (_req: Request, { params }: Params<{ name: string }>) => {
  const { name } = await params;
  const { readpast } = await getEngine();
  return json(await readpast.procedureParameters(name));
});
