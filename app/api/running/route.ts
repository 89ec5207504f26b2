// GET /api/running: ExecutionStatus, the attempts running right now.
import { runningJson } from '@/lib/engine/present';
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  const items = await readpast.store.listRunning();
  return json({ items: items.map(runningJson) });
});
