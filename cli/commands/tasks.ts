// readpast tasks [--status S] [--queue Q] [--command C] [--batch ID] [--flow ID] [--q TEXT] [--limit N]
//   [--cursor ID] [--json] — tasks newest first, filtered as the dashboard's Tasks browser (lib/api/task-query.ts)
import { ValidationError } from '../../lib/engine/errors';
import { parseTaskQuery, type TaskQueryKey } from '../../lib/api/task-query';
import { parseFlags, positionals } from '../args';
import { print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';
import { formatTasks } from '../format-flows';

/** flag → the query parameter it sets */
const FLAGS = {
  status: 'status',
  queue: 'queue',
  command: 'command',
  key: 'key',
  batch: 'batch',
  flow: 'flow',
  q: 'q',
  limit: 'limit',
  cursor: 'cursor',
} as const satisfies Record<string, TaskQueryKey>;

export async function run(argv: string[]): Promise<number> {
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const f of Object.keys(FLAGS)) options[f] = { type: 'string' };
  const { values, positionals: rest } = parseFlags({ args: argv, options, strict: true, allowPositionals: true });
  positionals(rest, []);
  const query: Record<string, string> = {};
  for (const [flag, key] of Object.entries(FLAGS)) {
    const v = values[flag];
    if (typeof v === 'string') query[key] = v;
  }
  let filter;
  try {
    filter = parseTaskQuery(query);
  } catch (err) {
    if (err instanceof ValidationError && err.field in FLAGS)
      throw new UsageError(`--${err.field}`, err.message.slice(err.field.length + 2));
    throw err;
  }
  return withContext({}, async ({ readpast }) => {
    const page = await readpast.tasks(filter);
    print(values.json ? JSON.stringify(page, null, 2) : formatTasks(page.items, page.nextCursor, page.partial === true));
    return EXIT.ok;
  });
}
