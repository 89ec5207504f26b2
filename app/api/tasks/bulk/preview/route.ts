// POST /api/tasks/bulk/preview {action, tokens? | filter?, priority?}: how many tasks the action would change
// ({action, count, matched}); a filter matching more than 100,000 tasks is refused (400 naming `filter`).
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (req: Request) => {
  const body = await readJson(req);
  const { readpast } = await getEngine();
  return json(await readpast.bulkPreview(body));
});
