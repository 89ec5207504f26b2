// GET /api/queues: every queue with its concurrency limit, pause state, pending, running and granted
// tokens, and the recent limit / pause changes, newest first.
import { queueJson } from '@/lib/engine/present';
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  const { queues, changes } = await readpast.queues();
  return json({ queues: queues.map(queueJson), changes });
});
