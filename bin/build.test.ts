// Issue 21 item 10: a build says once what it builds and how long it takes, shows its progress in a few
// lines (not Next.js's ~95 lines and route table), and keeps its own output in a log file named on failure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const BUILD = fileURLToPath(new URL('./build.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'readpast-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for `next build`: Next.js's phases among 95 lines of output and a route table, then `exit`. */
function fakeBuild(exit: number): string {
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
  const file = join(dir, `fake-${exit}.mjs`);
  // the output comes over time, as a build's does
  writeFileSync(
    file,
    `for (const l of ${JSON.stringify(lines)}) { console.log(l); await new Promise((r) => setTimeout(r, 15)); }\n` +
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
