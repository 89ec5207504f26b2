#!/usr/bin/env node
// Builds what the package ships, each part only when its sources are newer than its last build:
//   the library and the CLI (tsdown → dist/, about 10 s) and the dashboard (next build → .next/, about
//   2 to 5 minutes on 2 cores). `npm run build:package` (and so `prepack`) runs this; `npm start` uses
//   buildDashboard. A build prints one line saying what it builds and how long that takes, then its
//   progress in a few lines; the build's own output goes to a log file, named when it fails.
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What each build is made from (tests excluded). */
const DASHBOARD_SOURCES = [
  'app',
  'components',
  'lib',
  'db',
  'proxy.ts',
  'instrumentation.ts',
  'next.config.js',
  'postcss.config.mjs',
  'package.json',
];
const LIB_SOURCES = ['lib', 'db', 'cli', 'tsdown.config.ts', 'bin/dts-optional.mjs', 'package.json'];

/** Folders of tests and their support, never part of a build (`npm run check:layers` refuses a runtime import of them). */
const TEST_FOLDERS = /(^|\/)test-support$|^db\/contract$|^(cli|bin)\/test$/;

/** Newest modification time of the files under `paths` (node_modules, dot-folders and tests left out). */
export function newestSource(root, paths) {
  let newest = 0;
  const visit = (rel) => {
    const path = join(root, rel);
    let st;
    try {
      st = statSync(path);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      if (TEST_FOLDERS.test(rel)) return;
      for (const name of readdirSync(path)) if (name !== 'node_modules' && !name.startsWith('.')) visit(`${rel}/${name}`);
    } else if (!/\.test(-d)?\.tsx?$/.test(path)) {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const p of paths) visit(p);
  return newest;
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** 'missing', 'stale' or 'current': the dashboard build (.next) against its sources. */
export function dashboardState(root = ROOT) {
  const built = mtime(join(root, '.next', 'BUILD_ID'));
  if (built === null) return 'missing';
  return newestSource(root, DASHBOARD_SOURCES) > built ? 'stale' : 'current';
}

/** 'missing', 'stale' or 'current': the compiled library and CLI (dist/) against their sources. */
export function libState(root = ROOT) {
  const built = Math.min(mtime(join(root, 'dist', 'index.js')) ?? -1, mtime(join(root, 'dist', 'cli.js')) ?? -1);
  if (built < 0) return 'missing';
  return newestSource(root, LIB_SOURCES) > built ? 'stale' : 'current';
}

/** Next.js's build output, as the few phases worth a line of progress. */
export const PHASES = [
  [/Creating an optimized production build/, 'compiling'],
  [/Compiled successfully|✓ Compiled/, 'compiled'],
  [/Running TypeScript|Linting and checking/, 'checking types'],
  [/Collecting page data/, 'collecting page data'],
  [/Generating static pages/, 'generating pages'],
  [/Finalizing page optimization|Collecting build traces/, 'finalizing'],
];

/**
 * Runs `cmd args` in `root` with its output in `logFile`; shows `label` with the phases `phases` finds in
 * that output (one line rewritten in place on a terminal, one line per phase otherwise). Resolves true
 * when it succeeded.
 */
export function runLogged({ root, cmd, args, env, logFile, label, phases = [] }) {
  const tty = process.stdout.isTTY;
  const started = Date.now();
  let phase = 'starting';
  let reached = -1;
  const show = (final) => {
    const s = Math.round((Date.now() - started) / 1000);
    const line = `readpast: ${label}: ${phase} (${s} s)`;
    if (tty) process.stdout.write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    else if (!final) console.log(line);
  };
  return new Promise((resolve) => {
    const log = createWriteStream(logFile);
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const ticker = tty ? setInterval(() => show(false), 1000) : null;
    show(false);
    const onData = (chunk) => {
      log.write(chunk);
      const text = String(chunk);
      // the furthest phase this output reached, shown once
      const next = phases.findLastIndex(([re]) => re.test(text));
      if (next > reached) {
        reached = next;
        phase = phases[next][1];
        show(false);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => {
      if (ticker) clearInterval(ticker);
      phase = code === 0 ? 'done' : `failed (exit ${code})`;
      if (tty) show(true);
      else console.log(`readpast: ${label}: ${phase} in ${Math.round((Date.now() - started) / 1000)} s`);
      log.end(() => resolve(code === 0));
    });
    child.on('error', (err) => {
      log.write(`${err.message}\n`);
      resolve(false);
    });
  });
}

/** `next build`, announced once with how long it takes; its output kept in build.log. Resolves true when it built. */
export async function buildDashboard(root = ROOT, why = 'no build yet') {
  const logFile = join(root, 'build.log');
  const took = 'this takes a few minutes (2 to 5 on two cores), once';
  console.log(`readpast: building the dashboard (${why}); ${took} — its output goes to ${logFile}`);
  const nextBin = createRequire(join(root, 'package.json')).resolve('next/dist/bin/next');
  const ok = await runLogged({
    root,
    cmd: process.execPath,
    args: [nextBin, 'build'],
    env: { NEXT_TELEMETRY_DISABLED: '1' },
    logFile,
    label: 'dashboard build',
    phases: PHASES,
  });
  if (!ok) console.error(`readpast: the dashboard build failed; its output is in ${logFile}`);
  return ok;
}

/** tsdown: the library and the CLI into dist/; its output kept in build-lib.log. */
export async function buildLib(root = ROOT) {
  const logFile = join(root, 'build-lib.log');
  const tsdown = createRequire(join(root, 'package.json')).resolve('tsdown/run');
  const ok = await runLogged({ root, cmd: process.execPath, args: [tsdown], env: {}, logFile, label: 'library build (dist/)' });
  if (!ok) console.error(`readpast: the library build failed; its output is in ${logFile}`);
  return ok;
}

/**
 * Runs `fn` holding a lock on the checkout (`.tmp/<name>.lock`, a folder naming its holder's pid): two runs
 * in one checkout (two test runs, a test run and `npm run build:package`) never build into dist/ at once. A
 * lock whose holder is gone is taken over.
 */
export async function withBuildLock(root, name, fn) {
  const lock = join(root, '.tmp', `${name}.lock`);
  mkdirSync(join(root, '.tmp'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err?.code !== 'EEXIST') throw err;
      let holder = 0;
      try {
        holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        // just made, its pid not written yet
      }
      if (holder && !alive(holder)) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err?.code === 'EPERM';
  }
}

/**
 * dist/ as its sources are now: built (tsdown) when missing or older than a source, under the build lock.
 * Resolves true when dist/ is current.
 */
export function ensureLib(root = ROOT) {
  return withBuildLock(root, 'build-lib', async () => libState(root) === 'current' || (await buildLib(root)));
}

/**
 * Turbopack requires each server-external package (better-sqlite3, mssql, pino) by a hashed alias
 * (`better-sqlite3-90e2652d1716b047`) that it links in .next/node_modules to ../../node_modules/<name>. A
 * package cannot carry those links (npm leaves symlinks out, and once installed the dependency lies beside
 * the package, not inside it), so the packaged build requires them by their plain names instead, which
 * Node resolves from the package like any of its dependencies. Idempotent; returns the aliases rewritten.
 */
export function plainExternals(root = ROOT) {
  const links = new Map();
  const dir = join(root, '.next', 'node_modules');
  const visit = (d, prefix) => {
    let names;
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(d, name);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) {
        const target = readlinkSync(path).split('node_modules/').pop();
        if (target) links.set(`${prefix}${name}`, target);
      } else if (st.isDirectory() && name.startsWith('@')) {
        visit(path, `${name}/`);
      }
    }
  };
  visit(dir, '');
  if (links.size === 0) return [];
  const alias = new RegExp(`(["'])(${[...links.keys()].map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})\\1`, 'g');
  const rewrite = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) rewrite(path);
      else if (name.endsWith('.js')) {
        const text = readFileSync(path, 'utf8');
        const out = text.replace(alias, (_, q, k) => `${q}${links.get(k)}${q}`);
        if (out !== text) writeFileSync(path, out);
      }
    }
  };
  rewrite(join(root, '.next', 'server'));
  return [...links.keys()];
}

async function main() {
  const force = process.argv.includes('--force');
  // `--lib` or `--dashboard`: that build alone (bin/run-tests.mjs runs the two side by side); neither: both
  const only = ['--lib', '--dashboard'].filter((flag) => process.argv.includes(flag));
  const wants = (flag) => only.length === 0 || only.includes(flag);
  const lib = !wants('--lib') ? 'current' : force ? 'forced' : libState();
  if (lib !== 'current' && !(await withBuildLock(ROOT, 'build-lib', buildLib))) process.exit(1);
  const dash = !wants('--dashboard') ? 'current' : force ? 'forced' : dashboardState();
  if (dash !== 'current' && !(await buildDashboard(ROOT, dash === 'stale' ? 'sources changed since the last build' : dash)))
    process.exit(1);
  if (lib === 'current' && dash === 'current')
    console.log(`readpast: ${only.length === 1 ? (wants('--lib') ? 'dist/ is' : '.next/ is') : 'dist/ and .next/ are'} up to date`);
  if (!wants('--dashboard')) return;
  const rewritten = plainExternals();
  if (rewritten.length) console.log(`readpast: the dashboard build requires ${rewritten.length} server externals by their plain names`);
}

const invoked = process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invoked) await main();
