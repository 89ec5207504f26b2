// readpast dashboard [--port N] [--host H] [--handlers MODULE] [--workers N]
// Serves the prebuilt dashboard (the package's `.next`) against READPAST_DATABASE_URL, or the default SQLite
// file under the current directory, with no build step: the same checks as `npm start` (the environment,
// the bind refusal), the database migrated, then `next start` supervised (cli/dashboard-process.ts).
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { openReadpast } from '../../lib/api/open';
import { MAX_DASHBOARD_WORKERS } from '../../lib/engine/limits';
import { bindRefusal, loadServerConfig } from '../../lib/server/config';
import { intFlag, parseFlags, positionals } from '../args';
import { hasDashboardBuild, packageRoot, serveDashboard } from '../dashboard-process';
import { EXIT, UsageError } from '../errors';

/** A relative `sqlite:` path made absolute against `cwd` (the server must not depend on its working directory). */
export function absoluteSqliteUrl(url: string, cwd = process.cwd()): string {
  if (!url.startsWith('sqlite:')) return url;
  const path = url.slice('sqlite:'.length);
  return !path || isAbsolute(path) || path.startsWith('//') ? url : `sqlite:${resolve(cwd, path)}`;
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      handlers: { type: 'string' },
      workers: { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  if (values.port !== undefined) env.PORT = String(intFlag('--port', values.port, 1, 65535));
  if (values.workers !== undefined) env.READPAST_WORKERS = String(intFlag('--workers', values.workers, 0, MAX_DASHBOARD_WORKERS));
  if (values.host !== undefined) {
    if (!values.host.trim()) throw new UsageError('--host', 'needs a host name or IP address');
    env.READPAST_HOST = values.host;
  }
  const handlers = values.handlers ?? env.READPAST_HANDLERS?.trim();
  if (handlers) {
    const file = resolve(handlers);
    if (!existsSync(file)) throw new UsageError(values.handlers === undefined ? 'READPAST_HANDLERS' : '--handlers', `no such file ${file}`);
    env.READPAST_HANDLERS = file;
  }
  let config;
  try {
    config = loadServerConfig(env);
  } catch (err) {
    process.stderr.write(`readpast dashboard: ${(err as Error).message}\n`);
    return EXIT.failure;
  }
  const refusal = bindRefusal(config);
  if (refusal) {
    process.stderr.write(`readpast dashboard: ${refusal}\n`);
    return EXIT.usage;
  }
  const root = packageRoot();
  if (!hasDashboardBuild(root)) {
    process.stderr.write(`readpast dashboard: no dashboard build in ${join(root, '.next')}; run \`npm run build\` there first\n`);
    return EXIT.failure;
  }
  env.READPAST_DATABASE_URL = absoluteSqliteUrl(config.databaseUrl);
  try {
    const readpast = await openReadpast({ url: env.READPAST_DATABASE_URL });
    await readpast.close();
  } catch (err) {
    process.stderr.write(`readpast dashboard: cannot open the database: ${(err as Error).message}\n`);
    return EXIT.failure;
  }
  return serveDashboard({ root, host: config.host, port: config.port, env });
}
