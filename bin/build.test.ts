// Issue 21 item 10: a build says once what it builds and how long it takes, shows its progress in a few
// lines (not Next.js's ~95 lines and route table), and keeps its own output in a log file named on failure.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const BUILD = fileURLToPath(new URL('./build.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'readpast-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for `next build`: Next.js's phases among 95 lines of output and a route table, then `exit`. */
function fakeBuild(exit: number, file = join(dir, `fake-${exit}.mjs`)): string {
  const lines = [
    '▲ Next.js 16 (Turbopack)',
    '  Creating an optimized production build ...',
    '✓ Compiled successfully in 2.9min',
    '  Running TypeScript ...',
    '  Collecting page data ...',
    ...Array.from({ length: 20 }, (_, i) => `  Generating static pages (${i}/20)`),
    '  Finalizing page optimization ...',
    ...Array.from({ length: 70 }, (_, i) => `├ ƒ /route-${i}`),
  ];
  // the output comes over time, as a build's does; its first phases far enough apart to be read one at a
  // time even on a busy machine (lines read together show only the furthest phase)
  writeFileSync(
    file,
    `console.log('argv:', process.argv.slice(2).join(' '));\n` +
      `for (const [i, l] of ${JSON.stringify(lines)}.entries()) {\n` +
      `  console.log(l);\n  await new Promise((r) => setTimeout(r, i < 6 ? 250 : 15));\n}\n` +
      `console.error('the build broke');\nprocess.exit(${exit});\n`,
  );
  return file;
}

function run(exit: number) {
  const logFile = join(dir, `build-${exit}.log`);
  const script = `
    import { runLogged, PHASES } from ${JSON.stringify(BUILD)};
    const ok = await runLogged({ root: ${JSON.stringify(dir)}, cmd: process.execPath, args: [${JSON.stringify(fakeBuild(exit))}],
      env: {}, logFile: ${JSON.stringify(logFile)}, label: 'dashboard build', phases: PHASES });
    process.exit(ok ? 0 : 1);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { ...r, logFile };
}

test('a build shows a few lines of progress and keeps its own output in the log file', () => {
  const r = run(0);
  expect(r.status).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines.length).toBeLessThanOrEqual(8);
  expect(lines[0]).toMatch(/^readpast: dashboard build: starting \(\d+ s\)$/);
  expect(lines.map((l) => l.replace(/ \(\d+ s\)$/, ''))).toEqual(
    expect.arrayContaining(['readpast: dashboard build: compiling', 'readpast: dashboard build: generating pages']),
  );
  expect(lines.at(-1)).toMatch(/^readpast: dashboard build: done in \d+ s$/);
  expect(r.stdout).not.toContain('/route-');
  const log = readFileSync(r.logFile, 'utf8');
  expect(log).toContain('├ ƒ /route-69');
  expect(log).toContain('the build broke');
});

test('a failed build says so in one line; its output is in the log', () => {
  const r = run(1);
  expect(r.status).toBe(1);
  expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^readpast: dashboard build: failed \(exit 1\) in \d+ s$/);
  expect(readFileSync(r.logFile, 'utf8')).toContain('Generating static pages (19/20)');
});

/** `buildDashboard` in a project whose `next` is the fake build above (its `next/dist/bin/next`). */
function dashboard(exit: number) {
  const root = join(dir, `project-${exit}`);
  const bin = join(root, 'node_modules', 'next', 'dist', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"project","private":true}');
  writeFileSync(join(root, 'node_modules', 'next', 'package.json'), '{"name":"next","version":"0.0.0","type":"module"}');
  fakeBuild(exit, join(bin, 'next.js'));
  const script = `
    import { buildDashboard } from ${JSON.stringify(BUILD)};
    process.exit((await buildDashboard(${JSON.stringify(root)})) ? 0 : 1);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { ...r, logFile: join(root, 'build.log') };
}

const ANNOUNCED =
  /^readpast: building the dashboard \(no build yet\); this takes a few minutes \(2 to 5 on two cores\), once — its output goes to (.+)$/;

test('buildDashboard announces itself in one line: what it builds, how long it takes, where its output goes', () => {
  const r = dashboard(0);
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines[0]).toMatch(ANNOUNCED);
  expect(lines[0]!.match(ANNOUNCED)![1]).toBe(r.logFile);
  expect(lines.filter((l) => /building the dashboard|a few minutes|build\.log/.test(l))).toHaveLength(1);
  expect(lines.slice(1).every((l) => l.startsWith('readpast: dashboard build: '))).toBe(true);
  expect(lines.length).toBeLessThanOrEqual(9);
  expect(r.stderr).toBe('');
  // `next build` ran, its output in build.log only
  const log = readFileSync(r.logFile, 'utf8');
  expect(log).toContain('argv: build');
  expect(log).toContain('├ ƒ /route-69');
  expect(r.stdout).not.toContain('/route-');
});

test('a failed buildDashboard names its log file in one line', () => {
  const r = dashboard(1);
  expect(r.status).toBe(1);
  expect(r.stdout.trim().split('\n').at(-1)).toMatch(/^readpast: dashboard build: failed \(exit 1\) in \d+ s$/);
  expect(r.stderr.trim().split('\n')).toEqual([`readpast: the dashboard build failed; its output is in ${r.logFile}`]);
  expect(readFileSync(r.logFile, 'utf8')).toContain('the build broke');
});
