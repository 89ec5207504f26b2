// `npm start`'s early checks exit as the command line does (README, Exit codes): a configuration it
// refuses — a bad environment value, a public bind without credentials — is exit 2 with one line naming
// it, before anything is built or opened.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const START = fileURLToPath(new URL('./start.mjs', import.meta.url));

function start(env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('READPAST_'))) as NodeJS.ProcessEnv;
  return spawnSync(process.execPath, [START], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 60_000 });
}

describe('npm start refuses a configuration with exit 2', () => {
  it.each([
    [{ PORT: 'eighty' }, /^readpast: PORT: must be a port number/],
    [{ READPAST_WORKERS: '-3' }, /^readpast: READPAST_WORKERS: /],
    [{ READPAST_HOST: '0.0.0.0' }, /^readpast: .*0\.0\.0\.0/],
  ])('%j', (env, message) => {
    const r = start(env);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
