#!/usr/bin/env node
// `npm run bench` (last part): wall time of one-shot CLI commands on SQLite, as a user runs them —
// `readpast enqueue …` and `readpast status TOKEN`, each a fresh `node bin/readpast.mjs` process.
// "sources" is how the repository ran the CLI before the package (TypeScript through tsx at every call);
// "compiled" is the package's dist/cli.js (built here first when missing or older than the sources).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { libState } from './build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'readpast.mjs');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 7);
const TARGET_S = 0.35;

// BENCH_ONLY=keys runs that case of bin/bench.ts alone: nothing here then
if (process.env.BENCH_ONLY) process.exit(0);

if (libState(root) !== 'current') {
  console.log('bench-cli: building dist/ first (npm run build:lib)…');
  execFileSync('npm', ['run', '--silent', 'build:lib'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

const dir = mkdtempSync(join(tmpdir(), 'readpast-bench-cli-'));
const env = { ...process.env, READPAST_DATABASE_URL: `sqlite:${join(dir, 'bench.db')}` };

function run(mode, args) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args], { env: { ...env, READPAST_CLI: mode }, encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`readpast ${args.join(' ')} (${mode}) exited ${r.status}: ${r.stderr}`);
  return { seconds, stdout: r.stdout.trim() };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  run('compiled', ['migrate']);
  const token = run('compiled', ['enqueue', '--handler', 'demo.echo', '--payload', '{"n":1}']).stdout;
  const rows = [];
  for (const mode of ['sources', 'compiled']) {
    const times = { enqueue: [], status: [] };
    for (let i = 0; i < RUNS; i++) {
      times.enqueue.push(run(mode, ['enqueue', '--handler', 'demo.echo', '--payload', `{"n":${i}}`]).seconds);
      times.status.push(run(mode, ['status', token]).seconds);
    }
    rows.push({ mode, enqueue: median(times.enqueue), status: median(times.status) });
  }
  console.log(`\nCLI wall time on SQLite, median of ${RUNS} runs (target ≤ ${TARGET_S} s compiled)`);
  console.log('  mode                     enqueue   status');
  for (const r of rows) {
    const label = r.mode === 'sources' ? 'before: sources via tsx' : 'after: compiled dist/';
    console.log(`  ${label.padEnd(24)} ${r.enqueue.toFixed(3).padStart(6)} s ${r.status.toFixed(3).padStart(6)} s`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
