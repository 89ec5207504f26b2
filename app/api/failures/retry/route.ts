// POST /api/failures/retry {queue?, message?, q?, fingerprint?, command?}: retry every dead task matching the filter.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (req: Request) => {
  const filter = await readJson(req);
  const { readpast } = await getEngine();
  const r = await readpast.retryFailed(filter);
  return json({ count: r.retried, skipped: r.skipped });
});
