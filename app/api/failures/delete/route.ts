// POST /api/failures/delete {queue?, message?, q?, fingerprint?, command?}: delete every dead task matching the filter.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (req: Request) => {
  const filter = await readJson(req);
  const { readpast } = await getEngine();
  return json({ count: await readpast.deleteFailed(filter) });
});
