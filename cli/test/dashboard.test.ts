// `readpast dashboard`: the checks it makes before serving, the same as `npm start`'s (serving the
// packaged build is proved in bin/test/consumer.test.ts), and the helpers it is made of.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { absoluteSqliteUrl } from '../commands/dashboard';
import { packageRoot } from '../dashboard-process';
import { ROOT, cli, tempDb } from './helpers';

const db = tempDb();
afterAll(() => db.cleanup());

describe('readpast dashboard', () => {
  test('refuses to listen on a public address without credentials (exit 2), as npm start does', async () => {
    const r = await cli(['dashboard', '--host', '0.0.0.0', '--port', '3999'], { env: { ...db.env, READPAST_AUTH: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^readpast dashboard: refusing to listen on 0\.0\.0\.0 without credentials/);
  });

  test('names the flag or variable that is wrong', async () => {
    const port = await cli(['dashboard', '--port', '70000'], { env: db.env });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port: must be an integer from 1 to 65535');
    const workers = await cli(['dashboard', '--workers', '-1'], { env: db.env });
    expect(workers.code).toBe(2);
    expect(workers.stderr).toContain('--workers');
    const dir = mkdtempSync(join(tmpdir(), 'readpast-dash-'));
    try {
      const handlers = await cli(['dashboard', '--handlers', './nope.mjs'], { env: db.env, cwd: dir });
      expect(handlers.code).toBe(2);
      expect(handlers.stderr).toContain(`--handlers: no such file ${join(dir, 'nope.mjs')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const env = await cli(['dashboard'], { env: { ...db.env, READPAST_VIEWERS: 'v:secret' } });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('READPAST_VIEWERS: needs READPAST_AUTH');
  });

  test('a relative sqlite: path is made absolute against the working directory; other URLs are kept', () => {
    expect(absoluteSqliteUrl('sqlite:data/readpast.db', '/srv/app')).toBe('sqlite:/srv/app/data/readpast.db');
    expect(absoluteSqliteUrl('sqlite:/var/lib/r.db', '/srv/app')).toBe('sqlite:/var/lib/r.db');
    expect(absoluteSqliteUrl('mssql://u:p@h/db', '/srv/app')).toBe('mssql://u:p@h/db');
  });

  test('finds the package root from its own files', () => {
    expect(packageRoot()).toBe(ROOT.replace(/\/$/, ''));
  });
});
