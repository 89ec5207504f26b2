// readpast doctor [--json]: what will work on READPAST_DATABASE_URL before the first task runs.
// Opens nothing for work and migrates nothing (lib/api/open.ts diagnoseDatabase); exit 6 when a
// check this configuration needs fails, 0 otherwise (optional features that are off included).
import { diagnoseDatabase } from '../../lib/api/open';
import { parseFlags, positionals } from '../args';
import { print } from '../context';
import { EXIT } from '../errors';
import { formatDoctor } from '../format-doctor';
import { cliLogger } from '../logger';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  const report = await diagnoseDatabase(undefined, { logger: cliLogger('warn') });
  print(values.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
  return report.ok ? EXIT.ok : EXIT.doctor;
}
