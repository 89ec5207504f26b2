#!/usr/bin/env node
// `npm test`: every test, its steps run side by side where they can, so that a small machine's cores stay busy.
//
//   preflight, then ─┬─ lib build ─────── unit tests (vitest) ─┬─ package tests
//                    ├─ dashboard build ─┬─ browser tests ──────┘
//                    │                   └─ type check (the routes' generated checks included)
//                    └─ layer and format checks
//
// The browser tests are the longest chain and keep the machine's normal priority; the rest runs `nice`d beside
// them and takes whatever CPU they leave (not on a machine already busy: see besideNiceness). Each step's output
// is shown line by line behind its name and kept whole in .tmp/test-logs/<step>.log. A failed step fails the
// run; what depends on it is skipped, the rest still runs.
// READPAST_TEST_SERIAL=1 (or a machine of one core) runs the steps one after another, in the order above.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, realpathSync } from 'node:fs';
import { availableParallelism, getPriority, loadavg, setPriority } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './build.mjs';

const LOGS = join(ROOT, '.tmp', 'test-logs');
const node = process.execPath;
const bin = (pkg, path) => join(ROOT, 'node_modules', pkg, path);

/**
 * The niceness of the steps run beside the browser tests, so that they take the CPU the browser tests leave:
 * READPAST_TEST_NICE when set (0 to 19); else 10 on a machine with cores to spare, and 0 on one whose load
 * average already reaches its cores (there, other work would leave the niced steps waiting behind it).
 */
export function besideNiceness(env, load1, cores) {
  const set = env.READPAST_TEST_NICE;
  if (set !== undefined && set !== '') {
    const n = Number(set);
    if (!Number.isInteger(n) || n < 0 || n > 19)
      throw new Error(`READPAST_TEST_NICE must be an integer from 0 to 19, not ${JSON.stringify(set)}`);
    return n;
  }
  return load1 >= cores ? 0 : 10;
}

/**
 * How many test files Vitest runs at a time (READPAST_TEST_WORKERS, read by vitest.config.ts): as set, else null —
 * the config's default, as many as the cores and three at least — on a machine with cores to spare, and 2 on one whose
 * load average already reaches its cores: there a third file's processes only stretch the timing of the others.
 */
export function unitWorkers(env, load1, cores) {
  const set = env.READPAST_TEST_WORKERS;
  if (set !== undefined && set !== '') return set;
  return load1 >= cores ? '2' : null;
}

/** `npm run <script>` as a step: the same command the package.json gives, through the npm that runs this. */
function npmRun(script) {
  const npm = process.env.npm_execpath;
  return npm ? [node, npm, 'run', '-s', script] : ['npm', 'run', '-s', script];
}

/**
 * The steps after the preflight, in the order a serial run takes them. `after`: the steps it needs to have
 * passed. `nice`: runs at lower priority, beside the browser tests.
 */
export const STEPS = [
  { name: 'layers', cmd: npmRun('check:layers'), after: [], nice: true },
  { name: 'format', cmd: npmRun('check:format'), after: [], nice: true },
  // niced too: the dashboard build is the first link of the longest chain, the browser tests wait for it
  { name: 'lib', cmd: [node, 'bin/build.mjs', '--lib'], after: [], nice: true },
  {
    name: 'dashboard',
    cmd: [node, 'bin/build.mjs', '--dashboard'],
    // the type check below covers what Next's own pass would, the routes' generated checks included
    env: { READPAST_BUILD_SKIP_TYPES: '1' },
    after: [],
  },
  { name: 'types', cmd: [node, bin('typescript', 'bin/tsc'), '--noEmit', '-p', 'tsconfig.check.json'], after: ['dashboard'], nice: true },
  { name: 'unit', cmd: [node, bin('vitest', 'vitest.mjs'), 'run'], after: ['lib'], nice: true },
  { name: 'browser', cmd: npmRun('test:e2e'), env: { E2E_SKIP_BUILD: '1' }, after: ['dashboard'] },
  // after the unit tests: the two would share the CPU the browser tests leave. Tried beside them: `npm test` 41 s
  // sooner, but a process test's timing bound (cli/test/workflows.test.ts) broke under the added contention
  { name: 'package', cmd: npmRun('test:package'), after: ['lib', 'dashboard', 'unit'], nice: true },
];

const secs = (from) => Math.round((Date.now() - from) / 1000);

/**
 * Runs `steps` (each `{ name, cmd, env?, after, nice? }`) in `cwd`: side by side as their `after` allows, or one
 * at a time in their order when `serial`. A step whose prerequisite failed or was skipped is skipped. Each line a
 * step prints goes to `say` behind its name; its whole output to `<logs>/<name>.log`. Resolves with each step's
 * `{ state: 'passed'|'failed'|'skipped', secs }` by name. `stop()` on the returned handle ends every running step.
 */
export function runSteps(steps, { cwd, logs, serial = false, niceness = 10, say = (line) => process.stdout.write(`${line}\n`) }) {
  const width = Math.max(...steps.map((s) => s.name.length));
  const state = new Map(steps.map((s) => [s.name, { state: 'waiting', secs: 0, child: null }]));
  mkdirSync(logs, { recursive: true });

  /** Runs one step; resolves when it has ended. */
  const run = (step) =>
    new Promise((resolve) => {
      const entry = state.get(step.name);
      entry.state = 'running';
      const from = Date.now();
      const label = `[${step.name.padEnd(width)}]`;
      const niced = step.nice && !serial && niceness > 0;
      say(`${label} ▶ ${step.cmd.slice(1).join(' ')}${niced ? ` (nice ${niceness})` : ''}`);
      const log = createWriteStream(join(logs, `${step.name}.log`));
      const child = spawn(step.cmd[0], step.cmd.slice(1), {
        cwd,
        env: { ...process.env, ...step.env },
        stdio: ['ignore', 'pipe', 'pipe'],
        // its own process group, so that a stop ends the step's whole tree (servers, browsers, workers)
        detached: process.platform !== 'win32',
      });
      entry.child = child;
      if (niced && child.pid) {
        try {
          // never above this process's own priority (npm test itself run under `nice`)
          setPriority(child.pid, Math.max(getPriority(), niceness));
        } catch {
          // not allowed here: it runs at normal priority
        }
      }
      for (const stream of [child.stdout, child.stderr]) {
        let rest = '';
        stream.on('data', (chunk) => {
          log.write(chunk);
          const lines = (rest + chunk).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) say(`${label} ${line}`);
        });
        stream.on('end', () => {
          if (rest) say(`${label} ${rest}`);
        });
      }
      let ended = false;
      const done = (code) => {
        if (ended) return;
        ended = true;
        entry.child = null;
        entry.secs = secs(from);
        entry.state = code === 0 ? 'passed' : 'failed';
        say(`${label} ${code === 0 ? '✓ passed' : `✗ failed (exit ${code})`} in ${entry.secs} s`);
        log.end(() => resolve());
      };
      child.on('error', (err) => {
        log.write(`${err.message}\n`);
        done(127);
      });
      child.on('close', (code, signal) => done(code ?? (signal ? 128 : 1)));
    });

  const pending = new Set(steps);
  const running = new Set();
  const finished = new Promise((resolve) => {
    const tick = () => {
      for (const step of [...pending]) {
        const needs = step.after.map((n) => state.get(n).state);
        if (needs.some((s) => s === 'failed' || s === 'skipped')) {
          pending.delete(step);
          state.get(step.name).state = 'skipped';
          const missing = step.after.filter((n) => state.get(n).state !== 'passed').join(', ');
          say(`[${step.name.padEnd(width)}] – skipped: ${missing} did not pass`);
          continue;
        }
        if (needs.every((s) => s === 'passed') && (!serial || running.size === 0)) {
          pending.delete(step);
          const p = run(step).then(() => {
            running.delete(p);
            tick();
          });
          running.add(p);
          if (serial) break;
        }
      }
      if (pending.size === 0 && running.size === 0) {
        resolve(new Map([...state].map(([name, e]) => [name, { state: e.state, secs: e.secs }])));
      }
    };
    tick();
  });
  const stop = () => {
    pending.clear();
    for (const entry of state.values()) {
      const pid = entry.child?.pid;
      if (!pid) continue;
      try {
        process.kill(process.platform === 'win32' ? pid : -pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  };
  return { finished, stop };
}

async function main() {
  const started = Date.now();
  const serial = process.env.READPAST_TEST_SERIAL === '1' || availableParallelism() < 2;
  // the preflight alone first: when the machine lacks something, its one line is all there is to read
  const preflight = spawnSync(node, ['bin/preflight.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (preflight.status !== 0) process.exit(preflight.status ?? 1);
  let niceness;
  try {
    niceness = besideNiceness(process.env, loadavg()[0], availableParallelism());
  } catch (err) {
    console.error(`readpast test: ${err.message}`);
    process.exit(2);
  }
  const workers = unitWorkers(process.env, loadavg()[0], availableParallelism());
  if (workers !== null) process.env.READPAST_TEST_WORKERS = workers;
  const { finished, stop } = runSteps(STEPS, { cwd: ROOT, logs: LOGS, serial, niceness });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      stop();
      console.log(`readpast test: stopped (${signal})`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  const results = await finished;
  const width = Math.max(...STEPS.map((s) => s.name.length));
  const files = `Vitest ${workers ?? 'with its default number of'} files at a time`;
  const how = serial ? `one step at a time; ${files}` : `steps side by side (those beside the browser tests at nice ${niceness}; ${files})`;
  console.log(`\nreadpast test: ${how}, ${secs(started)} s in all`);
  for (const [name, { state, secs: took }] of results) {
    const mark = state === 'passed' ? '✓' : state === 'failed' ? '✗' : '–';
    const log = state === 'failed' ? ` — its output: .tmp/test-logs/${name}.log` : '';
    console.log(`  ${mark} ${name.padEnd(width)} ${state}${state === 'skipped' ? '' : ` ${took} s`}${log}`);
  }
  process.exit([...results.values()].every((r) => r.state === 'passed') ? 0 : 1);
}

const invoked = process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invoked) await main();
