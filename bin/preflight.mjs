#!/usr/bin/env node
// `npm test` runs this first: check what a machine needs for the tests, install what it safely can,
// or stop at once with one line naming what to install (never a wall of launch errors later).
//   1. Node 20 or later;
//   2. better-sqlite3 loads (it compiles from source where no prebuilt binary can be downloaded);
//   3. Chromium for the browser tests, at CHROMIUM_PATH or /usr/bin/chromium (playwright.config.ts
//      launches the same path). Missing, as root on Debian/Ubuntu: installed with apt-get.
// The decision is the pure function `decide` (bin/preflight.test.ts); the rest gathers facts and acts.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const MIN_NODE = 20;
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_HINT = 'readpast tests need Chromium: apt-get install chromium (or set CHROMIUM_PATH)';
export const TOOLCHAIN_HINT = 'install a C++ toolchain (apt-get install -y g++ make python3), then run npm rebuild better-sqlite3';

/**
 * What to do, from what the machine has (no side effects).
 * @param {import('./preflight.d.mts').Facts} facts
 * @returns {import('./preflight.d.mts').Decision}
 */
export function decide(facts) {
  const major = Number(String(facts.node).replace(/^v/, '').split('.')[0]);
  if (!(major >= MIN_NODE)) return { action: 'fail', line: `readpast needs Node ${MIN_NODE} or later (this is Node ${facts.node})` };
  if (facts.sqlite === 'missing') return { action: 'fail', line: 'readpast tests need the dependencies: run npm install first' };
  if (facts.sqlite !== 'ok') return { action: 'fail', line: `better-sqlite3 does not load (${facts.sqlite}): ${TOOLCHAIN_HINT}` };
  if (facts.chromium.present) return { action: 'ok' };
  // a path the user chose is theirs to fix; the default one we may install, as root with apt-get
  if (!facts.chromium.explicit && facts.root && facts.debian && facts.aptGet) {
    return {
      action: 'install-chromium',
      line: `readpast: no Chromium at ${facts.chromium.path}; installing it (apt-get install chromium)`,
    };
  }
  return { action: 'fail', line: `${CHROMIUM_HINT}; none at ${facts.chromium.path}` };
}

/** better-sqlite3: 'ok', 'missing' (npm install not run) or the first line of its load error. */
function sqliteState() {
  const require = createRequire(import.meta.url);
  try {
    const Database = require('better-sqlite3');
    new Database(':memory:').close();
    return 'ok';
  } catch (err) {
    const message = String(err?.message ?? err);
    if (err?.code === 'MODULE_NOT_FOUND' && message.includes("'better-sqlite3'")) return 'missing';
    const first = message.split('\n')[0] ?? '';
    return first.length > 100 ? `${first.slice(0, 97)}...` : first;
  }
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command) {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && executable(`${dir}/${command}`));
}

function isDebian() {
  if (existsSync('/etc/debian_version')) return true;
  try {
    return /^ID(_LIKE)?=.*\b(debian|ubuntu)\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

/** @returns {import('./preflight.d.mts').Facts} */
function facts() {
  const path = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  return {
    node: process.versions.node,
    sqlite: sqliteState(),
    chromium: { path, explicit: !!process.env.CHROMIUM_PATH, present: executable(path) },
    root: process.getuid?.() === 0,
    debian: isDebian(),
    aptGet: onPath('apt-get'),
  };
}

/** apt-get, non-interactive (no stdin, as in CI); its messages are shown only when it fails. */
function apt(args) {
  const run = spawnSync('apt-get', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (run.status !== 0) process.stderr.write(`${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `${run.error.message}\n` : ''}`);
  return run.status === 0;
}

function main() {
  let decision = decide(facts());
  if (decision.action === 'install-chromium') {
    console.log(decision.line);
    if (apt(['update', '-qq'])) apt(['install', '-y', '-qq', 'chromium']);
    const after = facts();
    decision = decide({ ...after, aptGet: false }); // installed now, or a plain failure: never a second attempt
  }
  if (decision.action === 'fail') {
    console.error(decision.line);
    process.exit(1);
  }
}

const invoked = process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invoked) main();
