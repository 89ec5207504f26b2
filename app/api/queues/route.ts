// GET /api/queues: every queue with its concurrency limit, pause state, pending, running and granted
// tokens, and the recent limit / pause changes, newest first.
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  return json(await readpast.queues());
});
