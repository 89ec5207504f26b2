// PATCH /api/pool {workers}: resize this process's worker pool live (0 stops local work); the size is stored
// for this host and the pool starts with it after a restart.
import { getEngine, resizePool } from '@/lib/server/engine';
import { handle, json, readBody } from '@/lib/server/http';
import { poolBody } from '@/lib/api/requests';

export const dynamic = 'force-dynamic';

export const PATCH = handle(async (req: Request) => {
  const { workers } = await readBody(req, poolBody);
  const info = await resizePool(await getEngine(), workers);
  return json({ size: info.size, retiring: info.retiring });
});
