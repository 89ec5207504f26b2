// `readpast alert …` as users run it: real child processes over a temporary SQLite file. add, list, show,
// test, remove with their JSON shapes and exit codes (2 bad arguments, 3 no such rule, 4 a taken name);
// the secret is never printed in full; every change is in the audit trail as done from the CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRuleJson } from '../../lib/api/alerts';
import { cli, cliOk, openLibrary, statusOf, tempDb, UUID, type TempDb } from './helpers';

describe('readpast alert', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDb();
  });
  afterAll(() => db.cleanup());

  it('add, list, show, test, remove — with the exit codes of the other commands', async () => {
    const env = { ...db.env, HOOK_SECRET: 'from-the-environment' };
    const line = await cliOk(
      [
        'alert',
        'add',
        'orders-dead',
        '--kind',
        'task_dead',
        '--queue',
        'orders',
        '--url',
        'http://127.0.0.1:9/hook',
        '--secret-env',
        'HOOK_SECRET',
      ],
      { env },
    );
    // the webhook URL is shown masked (a credential): scheme, host and its last 4 characters
    expect(line.trim()).toBe('alert rule orders-dead added (id 1): a task went dead → http://127.0.0.1:9/…hook');
    const slow = JSON.parse(
      await cliOk(
        [
          'alert',
          'add',
          'slow',
          '--kind',
          'ready_age',
          '--threshold-s',
          '120',
          '--url',
          'https://hooks.example/x',
          '--format',
          'slack',
          '--json',
        ],
        { env },
      ),
    ) as AlertRuleJson;
    expect(slow).toMatchObject({ id: 2, kind: 'ready_age', thresholdMs: 120_000, format: 'slack', secret: null, dedupMs: 600_000 });

    const listed = JSON.parse(await cliOk(['alert', 'list', '--json'], { env })) as { rules: AlertRuleJson[] };
    expect(listed.rules.map((r) => [r.name, r.secret])).toEqual([
      ['orders-dead', '••••ment'],
      ['slow', null],
    ]);
    const table = await cliOk(['alert', 'list'], { env });
    expect(table).toMatch(/^ID\s+NAME\s+KIND/);
    expect(table).toContain('queue orders');
    expect(table).not.toContain('from-the-environment');

    const token = (await cliOk(['alert', 'test', 'orders-dead'], { env })).trim();
    expect(token).toMatch(UUID);
    const task = await statusOf(token, { env });
    expect(task).toMatchObject({ queue: 'readpast.alerts', command: 'readpast.alert.deliver', status: 'pending' });
    expect(JSON.stringify(task)).not.toContain('from-the-environment');
    const shown = await cliOk(['alert', 'show', '1'], { env });
    expect(shown).toContain('••••ment');
    expect(shown).toContain(token);

    // bad arguments: 2, naming the flag
    const noKind = await cli(['alert', 'add', 'x', '--url', 'http://a/'], { env });
    expect(noKind.code).toBe(2);
    expect(noKind.stderr).toContain('--kind');
    const badUrl = await cli(['alert', 'add', 'x', '--kind', 'no_worker', '--url', 'ftp://a/'], { env });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--url: must be an http:// or https:// URL');
    const missing = await cli(['alert', 'add', 'x', '--kind', 'failure_streak', '--url', 'http://a/', '--count', '3'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--command');
    // a taken name: 4; no such rule: 3
    expect((await cli(['alert', 'add', 'slow', '--kind', 'no_worker', '--url', 'http://a/'], { env })).code).toBe(4);
    expect((await cli(['alert', 'show', 'nope'], { env })).code).toBe(3);
    expect((await cli(['alert', 'test', '99'], { env })).code).toBe(3);

    expect((await cliOk(['alert', 'remove', 'slow'], { env })).trim()).toBe('alert rule slow removed (its firings stay in the history)');
    expect((await cli(['alert', 'remove', 'slow'], { env })).code).toBe(3);

    const rp = await openLibrary(db);
    try {
      const audit = await rp.audit.list({ action: 'alert.', limit: 10 });
      expect(audit.items.map((a) => [a.action, a.target, a.source])).toEqual([
        ['alert.delete', 'slow', 'cli'],
        ['alert.test', 'orders-dead', 'cli'],
        ['alert.create', 'slow', 'cli'],
        ['alert.create', 'orders-dead', 'cli'],
      ]);
      expect(JSON.stringify(audit.items)).not.toContain('from-the-environment');
    } finally {
      await rp.close();
    }
  });
});
