// readpast migrate
import { parseFlags, positionals } from '../args';
import { print, withContext } from '../context';
import { EXIT } from '../errors';

export async function run(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  positionals(rest, []);
  // opened without migrating, then migrated once (not twice)
  return withContext({ migrate: false }, async ({ readpast }) => {
    await readpast.migrate();
    print(`migrated ${readpast.description}`);
    return EXIT.ok;
  });
}
