// POST /api/tasks/bulk {action: retry|cancel|delete|run_now|priority, tokens? | filter?, priority?, expected?}:
// one action on up to 1,000 tokens or on every task a Tasks-page filter (its query string) matches, done in
// chunks; `expected` is the count the operator confirmed (POST …/bulk/preview): more than that → 409.
// Returns {action, done, skipped, missing, expected, count}; recorded in the audit trail as tasks.bulk_<action>.
import { getEngine } from '@/lib/server/engine';
import { handle, json, readJson } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (req: Request) => {
  const body = await readJson(req);
  const { readpast } = await getEngine();
  return json(await readpast.bulk(body));
});
