// `readpast alert …` as users run it: real child processes over a temporary SQLite file. add, list, show,
// test, remove with their JSON shapes and exit codes (2 bad arguments, 3 no such rule, 4 a taken name);
// the secret is never printed in full; every change is in the audit trail as done from the CLI. A webhook at an
// internal address is refused (2, naming --url and why) unless READPAST_WEBHOOK_ALLOW allows it.
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
    // loopback and hooks.example (which does not resolve) are allowed on purpose
    const env = { ...db.env, HOOK_SECRET: 'from-the-environment', READPAST_WEBHOOK_ALLOW: '127.0.0.1/32,hooks.example' };
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
    expect((await cli(['alert', 'add', 'slow', '--kind', 'no_worker', '--url', 'https://hooks.example/y'], { env })).code).toBe(4);
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

  it('refuses a webhook at an internal address: 2, naming --url and why; READPAST_WEBHOOK_ALLOW lets it through', async () => {
    const env = { ...db.env, READPAST_WEBHOOK_ALLOW: '' };
    const hint = 'allow it with READPAST_WEBHOOK_ALLOW';
    const cases: [string, string][] = [
      ['http://127.0.0.1:9/', '127.0.0.1 is a loopback address'],
      ['http://[::1]:9/', '::1 is a loopback address'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address (the cloud metadata service)'],
      ['http://[fd00:ec2::254]/', 'fd00:ec2::254 is a link-local address (the cloud metadata service)'],
      ['http://169.254.1.1/', '169.254.1.1 is a link-local address'],
      ['http://[fe80::1]/', 'fe80::1 is a link-local address'],
      ['http://10.0.0.5/', '10.0.0.5 is a private address'],
      ['http://172.16.5.4/', '172.16.5.4 is a private address'],
      ['http://172.31.255.254/', '172.31.255.254 is a private address'],
      ['http://192.168.0.10/', '192.168.0.10 is a private address'],
      ['http://[fc00::1]/', 'fc00::1 is a private address'],
      ['http://[fdff::1]/', 'fdff::1 is a private address'],
      ['http://100.64.0.1/', '100.64.0.1 is a shared address (carrier-grade NAT, 100.64.0.0/10)'],
      ['http://0.0.0.0:9/', '0.0.0.0 is an unspecified address'],
      ['http://224.0.0.1/', '224.0.0.1 is a multicast address'],
      ['http://255.255.255.255/', '255.255.255.255 is a broadcast address'],
      ['http://[::ffff:7f00:1]:9/', '::ffff:7f00:1 is a loopback address (127.0.0.1 in IPv6 form)'],
      ['http://2130706433/', '127.0.0.1 is a loopback address'],
      // resolved by the system, as a delivery would be
      ['http://localhost:9/', 'localhost resolves to 127.0.0.1, a loopback address'],
    ];
    const add = (url: string, e = env) => cli(['alert', 'add', 'x', '--kind', 'no_worker', '--url', url], { env: e });
    for (let i = 0; i < cases.length; i += 4) {
      const batch = cases.slice(i, i + 4);
      const runs = await Promise.all(batch.map(([url]) => add(url)));
      runs.forEach((r, j) => {
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr.trim()).toBe(`readpast alert add: --url: ${batch[j]![1]}; ${hint}`);
      });
    }
    const typo = await add('https://hooks.invalid/x');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`--url: hooks.invalid does not resolve (ENOTFOUND): check the host name, or ${hint}`);
    // allowed on purpose
    const allowed = await add('http://10.0.0.5/hook', { ...env, READPAST_WEBHOOK_ALLOW: '10.0.0.0/8' });
    expect(allowed.code, allowed.stderr).toBe(0);
    // a bad allow-list is refused before anything is done, naming the variable
    const bad = await cli(['alert', 'list'], { env: { ...env, READPAST_WEBHOOK_ALLOW: '10.0.0.0/8,10.0.0.0/33' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('READPAST_WEBHOOK_ALLOW: "10.0.0.0/33" is not a CIDR, an IP address or a host name');
  }, 240_000); // twenty-two processes
});
