// POST /api/failures/delete {queue?, message?, q?, fingerprint?, command?}: delete every dead task matching the filter.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readBody } from '@/lib/server/http';
import { failureFilter } from '@/lib/api/requests';

export const dynamic = 'force-dynamic';

export const POST = handle(async (req: Request) => {
  const filter = await readBody(req, failureFilter);
  const { readpast } = await getEngine();
  return json({ count: await readpast.deleteFailed(filter) });
});
