// PATCH /api/pool {workers}: resize this process's worker pool live (0 stops local work).
import { ConflictError } from '@/lib/engine/errors';
import { getEngine } from '@/lib/server/engine';
import { handle, json, readBody } from '@/lib/server/http';
import { poolBody } from '@/lib/api/requests';

export const dynamic = 'force-dynamic';

export const PATCH = handle(async (req: Request) => {
  const { workers } = await readBody(req, poolBody);
  const { pool } = await getEngine();
  if (!pool) throw new ConflictError('this server has no worker pool');
  await pool.resize(workers);
  return json({ size: pool.size });
});
