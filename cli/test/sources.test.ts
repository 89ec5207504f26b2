// The repository's own `readpast`: bin/readpast.mjs beside the TypeScript sources runs them through tsx
// (always the current code, nothing to build), and with READPAST_CLI=compiled runs dist/ instead — or says
// how to build it. The other process tests run the compiled CLI (cli-mode.ts); this keeps the sources path
// proved in every run, in a tree that has the sources and no dist/ at all.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ROOT, sourcesEnv, tempDb, UUID, type TempDb } from './helpers';

describe('bin/readpast.mjs in a checkout without dist/', () => {
  let tree: string;
  let bin: string;
  let db: TempDb;
  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'readpast-sources-'));
    mkdirSync(join(tree, 'bin'));
    bin = join(tree, 'bin', 'readpast.mjs');
    copyFileSync(join(ROOT, 'bin', 'readpast.mjs'), bin);
    for (const p of ['cli', 'lib', 'db', 'node_modules', 'tsconfig.json', 'package.json']) symlinkSync(join(ROOT, p), join(tree, p));
    db = tempDb();
  });
  afterAll(() => {
    db?.cleanup();
    if (tree) rmSync(tree, { recursive: true, force: true });
  });

  it('runs the TypeScript sources through tsx: enqueue, then status --json', async () => {
    const env = sourcesEnv(db.env);
    const enqueued = await cli(['enqueue', '--handler', 'demo.echo', '--payload', '{"n":1}'], { env, bin, cwd: tree });
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const token = enqueued.stdout.trim();
    expect(token).toMatch(UUID);
    const status = await cli(['status', token, '--json'], { env, bin, cwd: tree });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ token, status: 'pending', command: 'demo.echo' });
  });

  it('READPAST_CLI=compiled runs dist/, and without one says to build it', async () => {
    const r = await cli(['stats'], { env: { ...db.env, READPAST_CLI: 'compiled' }, bin, cwd: tree });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('readpast: no compiled CLI in dist/; run `npm run build:lib` first\n');
  });
});
