// GET /api/audit?action=&target=&actor=&cursor=&limit=: the audit trail, newest first, keyset-paginated:
// `{items: [{at, actor, source, action, target, before, after, count}], next}`. `action` is exact, or a
// prefix when it ends with '.' (`task.`).
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { cursorParam, handle, intParam, json, readQuery } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({
  action: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z_]*(\.[a-z_]+)*\.?$/, 'an action name such as task.retry, or a prefix such as task.')
    .optional(),
  target: z.string().min(1).max(400).optional(),
  actor: z.string().min(1).max(200).optional(),
  cursor: cursorParam.optional(),
  limit: intParam(1, 200).default(50),
});

export const GET = handle(async (req: Request) => {
  const filter = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.audit.list(filter));
});
