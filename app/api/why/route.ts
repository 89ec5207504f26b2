// GET /api/why: every queue's health, as GET /api/queues/{name}/why answers for one: {queues: [...]}.
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  return json({ queues: await readpast.queueHealth() });
});
