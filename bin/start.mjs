#!/usr/bin/env node
// `npm start`: check the configuration, build the dashboard if there is no build yet, create or
// upgrade the database, then serve it with `next start` on READPAST_HOST:PORT (127.0.0.1:3000).
// SIGINT / SIGTERM are passed on so the worker pool stops gracefully; a second one kills.
// The dashboard prints one start-up line (lib/server/boot.ts); Next.js's own banner is left out.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const nextBin = require.resolve('next/dist/bin/next');
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

/** Exit codes as the command line's (README, Exit codes): 1 a failure at run time, 2 a configuration refused. */
const EXIT_FAILURE = 1;
const EXIT_CONFIG = 2;

function fail(message, code = EXIT_FAILURE) {
  console.error(`readpast: ${message}`);
  process.exit(code);
}

function run(args, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [nextBin, ...args], { cwd: root, env: { ...env, ...extraEnv }, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
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

/** Newest modification time of the sources the build is made from (tests excluded). */
function newestSource() {
  let newest = 0;
  const visit = (path) => {
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules' && !name.startsWith('.')) visit(join(path, name));
    } else if (!/\.test\.tsx?$/.test(path)) {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const p of [
    'app',
    'components',
    'lib',
    'db',
    'proxy.ts',
    'instrumentation.ts',
    'next.config.js',
    'postcss.config.mjs',
    'package.json',
  ]) {
    visit(join(root, p));
  }
  return newest;
}

const buildId = join(root, '.next', 'BUILD_ID');
const stale = existsSync(buildId) && newestSource() > statSync(buildId).mtimeMs;
if (!existsSync(buildId) || stale) {
  console.log(
    stale
      ? 'readpast: sources changed since the last build, running `next build`…'
      : 'readpast: no build yet, running `next build` (once)…',
  );
  const { code } = await run(['build']);
  if (code !== 0) fail(`next build failed (exit ${code})`);
}

try {
  const { openReadpast } = await tsImport('../lib/api/open.ts', import.meta.url);
  const readpast = await openReadpast({ url: config.databaseUrl });
  await readpast.close();
} catch (err) {
  fail(`cannot open the database: ${err.message}`, err.name === 'ConfigError' ? EXIT_CONFIG : EXIT_FAILURE);
}

const child = spawn(process.execPath, [nextBin, 'start', '-H', config.host, '-p', String(config.port)], {
  cwd: root,
  // the dashboard process stops its pool itself, then exits (instrumentation.ts)
  env: { ...env, NEXT_MANUAL_SIG_HANDLE: '1' },
  stdio: ['inherit', 'pipe', 'inherit'],
});
/** Next.js's start banner (`▲ Next.js 16…`, `- Local: …`, `✓ Starting…`, `✓ Ready in …`) and its blank lines */
const NEXT_BANNER = /^\s*(?:▲ Next\.js|- (?:Local|Network|Environments|Experiments):|✓ (?:Starting|Ready in|Running next\.config)|$)/;
createInterface({ input: child.stdout }).on('line', (line) => {
  if (!NEXT_BANNER.test(line)) process.stdout.write(`${line}\n`);
});
let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    signals++;
    child.kill(signals > 1 ? 'SIGKILL' : sig);
  });
}
// 'close': after the child's output has been passed on
child.on('close', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 143)));
