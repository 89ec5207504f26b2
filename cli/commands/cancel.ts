// readpast cancel TOKEN — pending → cancelled at once; running → cancel requested (cooperative).
import { parseFlags, positionals, tokenArg } from '../args';
import { print, withContext } from '../context';
import { EXIT } from '../errors';

export async function run(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  const token = tokenArg(positionals(rest, ['TOKEN'])[0]!);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.cancel(token);
    print(r === 'cancelled' ? `cancelled ${token}` : `cancel requested ${token} (the running attempt is being stopped)`);
    return EXIT.ok;
  });
}
