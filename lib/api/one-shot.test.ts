// What a one-shot command costs a SQL Server: `readpast enqueue`, `status` and `stats` run as the
// real command line against a stand-in TDS endpoint (db/mssql/test-support/fake-tds.ts) with the real driver,
// counting the logins and requests the endpoint sees. No migration check on the way (the worker and
// `readpast migrate` migrate), no probe connection, no capability query; the schema's version is checked
// by the first statement itself.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeTds, type FakeReplier } from '../../db/mssql/test-support/fake-tds';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'readpast.mjs');
const TOKEN = '6f1c2a8e-4b7d-4e3a-9c5f-0a1b2c3d4e5f';

function cli(args: string[], url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, READPAST_DATABASE_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const reply: FakeReplier = (req) => {
  // readpast.Enqueue_<hash>'s @results: [{ord, token, created}]
  if (req.text.includes('@tasks')) return { outputs: { results: JSON.stringify([{ ord: 0, token: TOKEN, created: 1 }]) } };
  // the command's audit row (written in the enqueue's transaction): its id
  if (req.text.includes('INSERT INTO readpast.AuditLog')) return { sets: [{ columns: [['id', 'int']], rows: [[1]] }] };
  // every read: empty
  return { sets: [{ columns: [['x', 'int']], rows: [] }] };
};

let tds: FakeTds;
beforeEach(async () => {
  tds = new FakeTds(reply);
  await tds.start();
});
afterEach(async () => {
  await tds.stop();
});

describe('one-shot commands against SQL Server', () => {
  it('readpast enqueue: one login and at most two round trips', async () => {
    const r = await cli(['enqueue', '--sql', 'SELECT 1'], tds.url());
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(TOKEN);
    expect(r.code).toBe(0);
    expect(tds.logins()).toHaveLength(1);
    expect(tds.requests().length).toBeLessThanOrEqual(2);
    // no migration check on the way: not its lock (the enqueue's own per-dedup-key lock is not it), permissions, server
    expect(tds.requests().some((q) => /readpast:migrate|HAS_PERMS_BY_NAME|SERVERPROPERTY/.test(q.text))).toBe(false);
    // the schema's version is checked by the enqueue's own statement (no round trip of its own)
    expect(tds.requests().filter((q) => q.text.includes('readpast.SchemaVersion'))).toHaveLength(1);
    expect(tds.requests().find((q) => q.text.includes('readpast.SchemaVersion'))!.text).toContain('@tasks');
  });

  it('readpast status and stats: one login each, their reads only', async () => {
    const status = await cli(['status', TOKEN], tds.url());
    expect(status.code).toBe(3); // no such task: the stand-in has no rows
    expect(tds.logins()).toHaveLength(1);
    expect(tds.requests()).toHaveLength(1);
    const stats = await cli(['stats', '--json'], tds.url());
    expect(stats.code).toBe(0);
    expect(tds.logins()).toHaveLength(2);
    expect(tds.requests()).toHaveLength(1 + 2);
  });

  it('readpast enqueue against a stand-in (Babelfish): refused as migrate refuses it, not with its parse error', async () => {
    tds.reply = (req) => {
      if (req.text.includes("SERVERPROPERTY('Babelfish')")) {
        const columns = [
          ['babelfish', 'int'],
          ['babelfish_version', 'nvarchar'],
          ['version_text', 'nvarchar'],
          ['database_name', 'nvarchar'],
        ] as const;
        return { sets: [{ columns, rows: [[1, '4.3.0', 'Babelfish for Aurora PostgreSQL', 'fake']] }] };
      }
      return { error: { number: 33557097, message: 'syntax error at or near "READPAST"' } };
    };
    const r = await cli(['enqueue', '--sql', 'SELECT 1'], tds.url());
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/SERVERPROPERTY\('Babelfish'\) = 1\) is not SQL Server/);
    expect(r.stderr).not.toMatch(/syntax error/);
  });
});
