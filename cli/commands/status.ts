// readpast status TOKEN [--json]
import { parseFlags, positionals, tokenArg } from '../args';
import { print, withContext } from '../context';
import { EXIT } from '../errors';
import { formatStatus } from '../format';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const token = tokenArg(positionals(rest, ['TOKEN'])[0]!);
  return withContext({}, async ({ readpast }) => {
    const status = await readpast.status(token);
    print(values.json ? JSON.stringify(status, null, 2) : formatStatus(status));
    return EXIT.ok;
  });
}
