// npm test's scheduler (bin/run-tests.mjs), with small Node programs as steps: what runs side by side, what a
// failure skips, the order of a serial run, the priority of a step run beside the others, and its log.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { besideNiceness, runSteps, STEPS, unitWorkers, type Step } from './run-tests.mjs';

const node = process.execPath;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-run-tests-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** a step running `code` with Node in the test's folder */
const step = (name: string, code: string, after: string[] = [], more: Partial<Step> = {}): Step => ({
  name,
  cmd: [node, '-e', code],
  after,
  ...more,
});
const run = async (steps: Step[], serial = false) => {
  const lines: string[] = [];
  const results = await runSteps(steps, { cwd: dir, logs: join(dir, 'logs'), serial, say: (l) => lines.push(l) }).finished;
  return { results, lines };
};
/** waits for another step's file: passes only when the two run at the same time */
const meet = (mine: string, theirs: string) =>
  `const fs=require('fs');fs.writeFileSync('${mine}','');const t=Date.now();` +
  `(function w(){if(fs.existsSync('${theirs}'))process.exit(0);if(Date.now()-t>20000)process.exit(3);setTimeout(w,20)})()`;

describe('npm test steps', () => {
  it('side by side: steps with nothing between them run at the same time', async () => {
    const { results } = await run([step('a', meet('a.ready', 'b.ready')), step('b', meet('b.ready', 'a.ready'))]);
    expect(results.get('a')?.state).toBe('passed');
    expect(results.get('b')?.state).toBe('passed');
  });

  it('a failed step skips what needs it (and what needs that); the others still run; its log holds its output', async () => {
    const { results, lines } = await run([
      step('build', "console.log('half built'); console.error('broken'); process.exit(2)"),
      step('tests', "console.log('ran')", ['build']),
      step('report', "console.log('ran')", ['tests']),
      step('lint', "console.log('linted')"),
    ]);
    expect(Object.fromEntries([...results].map(([n, r]) => [n, r.state]))).toEqual({
      build: 'failed',
      tests: 'skipped',
      report: 'skipped',
      lint: 'passed',
    });
    expect(lines).toContain('[build ] half built');
    expect(lines.some((l) => l.startsWith('[build ] ✗ failed (exit 2)'))).toBe(true);
    expect(lines).toContain('[tests ] – skipped: build did not pass');
    expect(readFileSync(join(dir, 'logs', 'build.log'), 'utf8')).toContain('broken');
  });

  it('serial: one at a time, in the order given', async () => {
    const at = (name: string) =>
      `const fs=require('fs');fs.appendFileSync('order','${name}+');setTimeout(()=>fs.appendFileSync('order','${name}-'),100)`;
    const { results } = await run([step('one', at('one')), step('two', at('two')), step('three', at('three'), ['one'])], true);
    expect([...results.values()].every((r) => r.state === 'passed')).toBe(true);
    expect(readFileSync(join(dir, 'order'), 'utf8')).toBe('one+one-two+two-three+three-');
  });

  it('a step run beside the others has a lower priority, its children too (never a higher one than this)', async () => {
    const print = "console.log(require('os').getPriority())";
    const own = getPriority();
    const lines: string[] = [];
    const steps = [
      step('beside', `require('child_process').execFileSync(process.execPath,['-e',"${print}"],{stdio:'inherit'})`, [], { nice: true }),
      step('main', print),
    ];
    await runSteps(steps, { cwd: dir, logs: join(dir, 'logs'), niceness: 15, say: (l) => lines.push(l) }).finished;
    expect(lines).toContain(`[beside] ${Math.max(own, 15)}`);
    expect(lines).toContain(`[main  ] ${own}`);
    // asked for less than this process has: the step keeps this process's
    lines.length = 0;
    await runSteps(steps, { cwd: dir, logs: join(dir, 'logs'), niceness: 1, say: (l) => lines.push(l) }).finished;
    expect(lines).toContain(`[beside] ${Math.max(own, 1)}`);
  });

  it('beside the browser tests: nice 10 on a machine with cores to spare, 0 on a busy one, or as READPAST_TEST_NICE says', () => {
    expect(besideNiceness({}, 0.4, 2)).toBe(10);
    expect(besideNiceness({}, 1.9, 2)).toBe(10);
    expect(besideNiceness({}, 2, 2)).toBe(0);
    expect(besideNiceness({}, 7.5, 2)).toBe(0);
    expect(besideNiceness({ READPAST_TEST_NICE: '5' }, 7.5, 2)).toBe(5);
    expect(besideNiceness({ READPAST_TEST_NICE: '0' }, 0, 2)).toBe(0);
    for (const bad of ['-1', '20', '2.5', 'high'])
      expect(() => besideNiceness({ READPAST_TEST_NICE: bad }, 0, 2)).toThrow(/READPAST_TEST_NICE/);
  });

  it('Vitest keeps its default number of files at a time on a machine with cores to spare, two on a busy one', () => {
    expect(unitWorkers({}, 0.4, 2)).toBeNull();
    expect(unitWorkers({}, 1.9, 2)).toBeNull();
    expect(unitWorkers({}, 2, 2)).toBe('2');
    expect(unitWorkers({}, 9.5, 2)).toBe('2');
    expect(unitWorkers({ READPAST_TEST_WORKERS: '4' }, 9.5, 2)).toBe('4');
    expect(unitWorkers({ READPAST_TEST_WORKERS: '' }, 0, 2)).toBeNull();
  });

  it("npm test's own steps: the browser tests keep their priority, every prerequisite is a step before it", () => {
    expect(STEPS.find((s) => s.name === 'browser')?.nice).toBeFalsy();
    const seen = new Set<string>();
    for (const s of STEPS) {
      for (const a of s.after) expect(seen.has(a), `${s.name} after ${a}`).toBe(true);
      seen.add(s.name);
    }
  });
});
