// readpast queue set NAME [--limit N | --unlimited] [--pause | --resume] [--per-key-limit N|none]
//                         [--key-from PATH|none] [--rate LIMIT/PERIOD|none [--rate-per-key]] [--json]
// readpast queue show NAME [--keys N] [--json]
// readpast queue list [--json]
// readpast queue tokens [NAME] [--json]
import { ValidationError } from '../../lib/engine/errors';
import { MAX_CONCURRENCY_LIMIT, MIN_CONCURRENCY_LIMIT } from '../../lib/engine/limits';
import { cliActor, intFlag, parseFlags, positionals, queueArg, subcommand } from '../args';
import { print, withContext } from '../context';
import { MAX_KEYS_LISTED } from '../../lib/api/queues';
import { EXIT, UsageError } from '../errors';
import { SUBCOMMANDS } from '../help';
import { throttleFlagOf, throttlePatch, THROTTLE_OPTIONS, type ThrottlePatch } from '../throttle-flags';
import { formatQueueLine, formatQueues, formatQueueShow, formatTokens } from '../format-queues';

/** `queue show`: the top keys (default) and the recent changes it prints. */
const SHOW_KEYS = 10;
const SHOW_CHANGES = 10;

const THROTTLE_FLAGS = '--per-key-limit, --key-from, --rate';

async function set(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: {
      limit: { type: 'string' },
      unlimited: { type: 'boolean' },
      pause: { type: 'boolean' },
      resume: { type: 'boolean' },
      ...THROTTLE_OPTIONS,
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  });
  const name = queueArg(positionals(rest, ['NAME'])[0]!);
  if (values.limit !== undefined && values.unlimited) throw new UsageError('--limit', 'cannot be combined with --unlimited');
  if (values.pause && values.resume) throw new UsageError('--pause', 'cannot be combined with --resume');
  const patch: ThrottlePatch & { concurrencyLimit?: number | null; paused?: boolean } = throttlePatch(values);
  const limit = intFlag('--limit', values.limit, MIN_CONCURRENCY_LIMIT, MAX_CONCURRENCY_LIMIT);
  if (limit !== undefined) patch.concurrencyLimit = limit;
  if (values.unlimited) patch.concurrencyLimit = null;
  if (values.pause) patch.paused = true;
  if (values.resume) patch.paused = false;
  if (Object.keys(patch).length === 0)
    throw new UsageError('--limit', `give --limit N, --unlimited, --pause or --resume (or ${THROTTLE_FLAGS})`);

  return withContext({}, async ({ readpast }) => {
    let view;
    try {
      view = await readpast.setQueue(name, patch, cliActor());
    } catch (err) {
      if (err instanceof ValidationError) {
        const flag = err.field === 'name' ? 'NAME' : err.field === 'paused' ? '--pause' : (throttleFlagOf(err.field) ?? '--limit');
        throw new UsageError(flag, err.message.slice(err.field.length + 2) || err.message);
      }
      throw err;
    }
    print(values.json ? JSON.stringify(view, null, 2) : formatQueueLine(view));
    return EXIT.ok;
  });
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { keys: { type: 'string' }, json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const name = queueArg(positionals(rest, ['NAME'])[0]!);
  const topKeys = intFlag('--keys', values.keys, 1, MAX_KEYS_LISTED) ?? SHOW_KEYS;
  return withContext({}, async ({ readpast }) => {
    // an unknown queue is exit 3 (NotFoundError)
    const view = await readpast.queue(name);
    const [keys, changes] = await Promise.all([readpast.queueKeys(name, topKeys), readpast.queueChanges(name, SHOW_CHANGES)]);
    const shown = { ...view, keys, changes };
    print(values.json ? JSON.stringify(shown, null, 2) : formatQueueShow(shown));
    return EXIT.ok;
  });
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  return withContext({}, async ({ readpast }) => {
    const { queues, changes } = await readpast.queues();
    print(values.json ? JSON.stringify({ queues, changes }, null, 2) : formatQueues(queues, changes));
    return EXIT.ok;
  });
}

async function tokens(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  if (rest.length > 1) throw new UsageError(null, `unexpected argument ${JSON.stringify(rest[1])}`);
  const name = rest[0] === undefined ? undefined : queueArg(rest[0]);
  return withContext({}, async ({ readpast }) => {
    // an unknown queue is exit 3, not an empty list (NotFoundError)
    const grants = await readpast.tokens(name);
    print(values.json ? JSON.stringify(grants, null, 2) : formatTokens(grants, name));
    return EXIT.ok;
  });
}

export async function run(argv: string[]): Promise<number> {
  const [sub, rest] = subcommand(argv, SUBCOMMANDS.queue);
  if (sub === 'set') return set(rest);
  if (sub === 'list') return list(rest);
  if (sub === 'show') return show(rest);
  return tokens(rest);
}
