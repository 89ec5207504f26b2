// readpast wake TOKEN — a sleeping durable task (or one waiting for an event) resumes now.
import { parseFlags, positionals, tokenArg } from '../args';
import { print, withContext } from '../context';
import { EXIT } from '../errors';

export async function run(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  const token = tokenArg(positionals(rest, ['TOKEN'])[0]!);
  return withContext({}, async ({ readpast }) => {
    await readpast.wake(token);
    print(`woke ${token} (it runs again, replaying the steps it finished)`);
    return EXIT.ok;
  });
}
