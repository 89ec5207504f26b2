// readpast retry TOKEN — dead or cancelled → pending.
import { parseFlags, positionals, tokenArg } from '../args';
import { print, withContext } from '../context';
import { EXIT } from '../errors';

export async function run(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  const token = tokenArg(positionals(rest, ['TOKEN'])[0]!);
  return withContext({}, async ({ readpast }) => {
    await readpast.retry(token);
    print(`retried ${token}`);
    return EXIT.ok;
  });
}
