import { describe, expect, it } from 'vitest';
import { CHROMIUM_HINT, DEFAULT_CHROMIUM, decide, type Facts, TOOLCHAIN_HINT } from './preflight.mjs';

/** A machine with everything: Node 20, a working better-sqlite3, Chromium at the default path. */
const READY: Facts = {
  node: '20.19.0',
  sqlite: 'ok',
  chromium: { path: DEFAULT_CHROMIUM, explicit: false, present: true },
  root: false,
  debian: true,
  aptGet: true,
};

const machine = (over: Partial<Facts>, chromium: Partial<Facts['chromium']> = {}): Facts => ({
  ...READY,
  ...over,
  chromium: { ...READY.chromium, ...chromium },
});

describe('preflight decide', () => {
  it('goes on when everything is there', () => {
    expect(decide(READY)).toEqual({ action: 'ok' });
    expect(decide(machine({ node: 'v22.1.0' }))).toEqual({ action: 'ok' });
  });

  it('stops on a Node older than 20, before anything else', () => {
    const d = decide(machine({ node: '18.19.1', sqlite: 'missing' }, { present: false }));
    expect(d).toEqual({ action: 'fail', line: 'readpast needs Node 20 or later (this is Node 18.19.1)' });
  });

  it('asks for npm install when better-sqlite3 is not installed', () => {
    expect(decide(machine({ sqlite: 'missing' }))).toEqual({ action: 'fail', line: expect.stringContaining('run npm install') });
  });

  it('names the C++ toolchain when better-sqlite3 does not load', () => {
    const d = decide(machine({ sqlite: 'Could not locate the bindings file.' }));
    expect(d).toEqual({ action: 'fail', line: `better-sqlite3 does not load (Could not locate the bindings file.): ${TOOLCHAIN_HINT}` });
    expect(TOOLCHAIN_HINT).toContain('apt-get install -y g++ make python3');
    expect(TOOLCHAIN_HINT).toContain('npm rebuild better-sqlite3');
  });

  it('installs a missing Chromium as root on Debian with apt-get', () => {
    const d = decide(machine({ root: true }, { present: false }));
    expect(d.action).toBe('install-chromium');
    expect(d).toHaveProperty('line', expect.stringContaining('installing it (apt-get install chromium)'));
  });

  it.each<[string, Partial<Facts>]>([
    ['not root', { root: false }],
    ['not Debian', { root: true, debian: false }],
    ['no apt-get', { root: true, aptGet: false }],
  ])('stops with one line when Chromium is missing and it cannot install (%s)', (_, over) => {
    const d = decide(machine(over, { present: false }));
    expect(d).toEqual({ action: 'fail', line: `${CHROMIUM_HINT}; none at /usr/bin/chromium` });
    expect(CHROMIUM_HINT).toBe('readpast tests need Chromium: apt-get install chromium (or set CHROMIUM_PATH)');
  });

  it('never installs over a CHROMIUM_PATH the user set', () => {
    const d = decide(machine({ root: true }, { path: '/opt/chrome/chrome', explicit: true, present: false }));
    expect(d).toEqual({ action: 'fail', line: `${CHROMIUM_HINT}; none at /opt/chrome/chrome` });
    expect(decide(machine({}, { path: '/opt/chrome/chrome', explicit: true }))).toEqual({ action: 'ok' });
  });
});
