// readpast flow create FILE.json|- [--json]   a whole graph in one transaction: prints its id and tokens
// readpast flow show ID [--json] | list [--unfinished] [--limit N] [--cursor ID] [--json] | cancel ID | retry ID
import { readFileSync } from 'node:fs';
import { FLOW_PAGE_MAX } from '../../lib/api/flows';
import { flowIdArg, intFlag, parseFlags, positionals, subcommand } from '../args';
import { envTrace, print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';
import { formatCreated, formatFlow, formatFlowList } from '../format-flows';
import { SUBCOMMANDS } from '../help';

/** The flow request in FILE (or stdin for `-`), as JSON; UsageError naming FILE otherwise. */
function readRequest(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(
      'FILE',
      `cannot read ${file === '-' ? 'stdin' : JSON.stringify(file)} (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
  if (text.trim() === '') throw new UsageError('FILE', `${file === '-' ? 'stdin' : file} is empty; give {"nodes": [...]}`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError('FILE', `invalid JSON (${(err as Error).message})`);
  }
}

const jsonOnly = { json: { type: 'boolean' } } as const;

async function create(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({ args: argv, options: jsonOnly, strict: true, allowPositionals: true });
  const request = readRequest(positionals(rest, ['FILE'])[0]!);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.flow(request, { caller: 'cli', ...envTrace() });
    print(values.json ? JSON.stringify(r, null, 2) : formatCreated(r));
    return EXIT.ok;
  });
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({ args: argv, options: jsonOnly, strict: true, allowPositionals: true });
  const id = flowIdArg(positionals(rest, ['ID'])[0]!);
  return withContext({}, async ({ readpast }) => {
    const f = await readpast.getFlow(id);
    print(values.json ? JSON.stringify(f, null, 2) : formatFlow(f));
    return EXIT.ok;
  });
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { ...jsonOnly, unfinished: { type: 'boolean' }, limit: { type: 'string' }, cursor: { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  const limit = intFlag('--limit', values.limit, 1, FLOW_PAGE_MAX);
  const cursor = values.cursor === undefined ? undefined : flowIdArg(values.cursor, '--cursor');
  return withContext({}, async ({ readpast }) => {
    const page = await readpast.flows({
      ...(values.unfinished ? { unfinished: true } : {}),
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    print(values.json ? JSON.stringify(page, null, 2) : formatFlowList(page.items, page.nextCursor));
    return EXIT.ok;
  });
}

async function cancel(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  const id = flowIdArg(positionals(rest, ['ID'])[0]!);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.cancelFlow(id);
    const asked = r.cancelRequested > 0 ? `, ${r.cancelRequested} running asked to stop` : '';
    print(`cancelled flow ${id}: ${r.cancelled} node(s) cancelled${asked}`);
    return EXIT.ok;
  });
}

async function retry(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  const id = flowIdArg(positionals(rest, ['ID'])[0]!);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.retryFlow(id);
    print(`retried flow ${id}: ${r.retried} node(s) (the nodes they cancelled wait for them again)`);
    return EXIT.ok;
  });
}

export async function run(argv: string[]): Promise<number> {
  const [sub, rest] = subcommand(argv, SUBCOMMANDS.flow);
  switch (sub) {
    case 'create':
      return create(rest);
    case 'show':
      return show(rest);
    case 'list':
      return list(rest);
    case 'cancel':
      return cancel(rest);
    case 'retry':
      return retry(rest);
  }
}
