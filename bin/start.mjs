#!/usr/bin/env node
// `npm start`: check the configuration, build the dashboard if there is no build yet (or the sources
// changed), create or upgrade the database, then serve it with `next start` on READPAST_HOST:PORT
// (127.0.0.1:3000), supervised as `readpast dashboard` does (cli/dashboard-process.ts): SIGINT / SIGTERM
// are passed on so the worker pool stops gracefully (a second one kills), and the dashboard stops when
// the process that started this one (npm) is gone. The dashboard prints one start-up line.
import { tsImport } from 'tsx/esm/api';
import { buildDashboard, dashboardState, ROOT } from './build.mjs';

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

/** Exit codes as the command line's (README, Exit codes): 1 a failure at run time, 2 a configuration refused. */
const EXIT_FAILURE = 1;
const EXIT_CONFIG = 2;

function fail(message, code = EXIT_FAILURE) {
  console.error(`readpast: ${message}`);
  process.exit(code);
}

const { loadServerConfig, bindRefusal } = await tsImport('../lib/server/config.ts', import.meta.url);
let config;
try {
  config = loadServerConfig(env);
} catch (err) {
  fail(err.message, err.name === 'ConfigError' ? EXIT_CONFIG : EXIT_FAILURE);
}
const refusal = bindRefusal(config);
if (refusal) fail(refusal, EXIT_CONFIG);

const state = dashboardState(ROOT);
if (state !== 'current' && !(await buildDashboard(ROOT, state === 'stale' ? 'sources changed since the last build' : 'first start'))) {
  process.exit(1);
}

try {
  const { openReadpast } = await tsImport('../lib/api/open.ts', import.meta.url);
  const readpast = await openReadpast({ url: config.databaseUrl });
  await readpast.close();
} catch (err) {
  fail(`cannot open the database: ${err.message}`, err.name === 'ConfigError' ? EXIT_CONFIG : EXIT_FAILURE);
}

const { serveDashboard } = await tsImport('../cli/dashboard-process.ts', import.meta.url);
process.exit(await serveDashboard({ root: ROOT, host: config.host, port: config.port, env }));
