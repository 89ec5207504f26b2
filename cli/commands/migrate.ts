// readpast migrate [--allow-sql on|off]
import { userInfo } from 'node:os';
import { parseFlags, positionals } from '../args';
import { print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { 'allow-sql': { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  const allowSql = values['allow-sql'];
  if (allowSql !== undefined && allowSql !== 'on' && allowSql !== 'off') throw new UsageError('--allow-sql', "'on' or 'off'");
  // opened without migrating, then migrated once (not twice)
  return withContext({ migrate: false }, async ({ readpast }) => {
    const report = await readpast.migrate();
    print(`migrated ${readpast.description}`);
    if (report.applied.length) print(`applied migration${report.applied.length > 1 ? 's' : ''} ${report.applied.join(', ')}`);
    if (report.installed.length) print(`installed ${report.installed.join(', ')}`);
    if (report.dropped.length) print(`dropped ${report.dropped.join(', ')} (no registered worker used them for the retention)`);
    if (allowSql !== undefined) {
      await readpast.setAllowSql(allowSql === 'on', `cli:${safeUser()}`);
      print(`allow_sql ${allowSql}: T-SQL callers ${allowSql === 'on' ? 'may' : 'may not'} enqueue sql tasks (readpast.ExecAsync)`);
    }
    return EXIT.ok;
  });
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
