// readpast event send NAME [--payload JSON] [--json] | list [--name N] [--limit N] [--before ID] [--json] | show ID [--json]
import { EVENT_PAGE_MAX } from '../../lib/api/durable';
import { intFlag, jsonFlag, parseFlags, positionals, subcommand } from '../args';
import { print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';
import { formatEvent, formatEventList, formatSent } from '../format-durable';
import { SUBCOMMANDS } from '../help';

const jsonOnly = { json: { type: 'boolean' } } as const;

async function send(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { ...jsonOnly, payload: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  const name = positionals(rest, ['NAME'])[0]!;
  const payload = jsonFlag('--payload', values.payload);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.sendEvent(name, payload ?? null);
    print(values.json ? JSON.stringify(r, null, 2) : formatSent(name, r));
    return EXIT.ok;
  });
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { ...jsonOnly, name: { type: 'string' }, limit: { type: 'string' }, before: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  const limit = intFlag('--limit', values.limit, 1, EVENT_PAGE_MAX);
  const before = intFlag('--before', values.before, 1, Number.MAX_SAFE_INTEGER);
  return withContext({}, async ({ readpast }) => {
    const page = await readpast.events({ name: values.name, limit, before });
    print(values.json ? JSON.stringify(page, null, 2) : formatEventList(page.items, page.nextCursor));
    return EXIT.ok;
  });
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({ args: argv, options: jsonOnly, strict: true, allowPositionals: true });
  const raw = positionals(rest, ['ID'])[0]!;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new UsageError('ID', `not an event id (a positive integer): ${JSON.stringify(raw.slice(0, 80))}`);
  return withContext({}, async ({ readpast }) => {
    const e = await readpast.event(raw);
    print(values.json ? JSON.stringify(e, null, 2) : formatEvent(e));
    return EXIT.ok;
  });
}

export async function run(argv: string[]): Promise<number> {
  const [sub, rest] = subcommand(argv, SUBCOMMANDS.event);
  switch (sub) {
    case 'send':
      return send(rest);
    case 'list':
      return list(rest);
    case 'show':
      return show(rest);
  }
}
