// readpast stats [--json]
import { parseFlags, positionals } from '../args';
import { print, withContext } from '../context';
import { EXIT } from '../errors';
import { formatStats } from '../format';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  return withContext({}, async ({ readpast }) => {
    const stats = await readpast.stats();
    print(values.json ? JSON.stringify(stats, null, 2) : formatStats(stats));
    return EXIT.ok;
  });
}
