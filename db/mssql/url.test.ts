import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openMssqlStore } from './store';
import { ConnectionStringError, describe as describeUrl, isMssqlUrl, parseMssqlUrl, splitAdo, toConfig } from './url';

const SECRET = 'S3cr:t/p@ss;word%';

/** Every way the parser can fail must leave the secret out of its message. */
function failure(input: string): ConnectionStringError {
  try {
    parseMssqlUrl(input);
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectionStringError);
    return err as ConnectionStringError;
  }
  throw new Error('expected a ConnectionStringError');
}

describe('mssql:// URLs', () => {
  it('reads user, percent-encoded password, host, port, database and options', () => {
    const t = parseMssqlUrl(
      `mssql://app%40corp:${encodeURIComponent(SECRET)}@db.example.com:14330/read%20past?encrypt=false&trustServerCertificate=true`,
    );
    expect(t).toMatchObject({
      user: 'app@corp',
      password: SECRET,
      server: 'db.example.com',
      port: 14330,
      database: 'read past',
      encrypt: false,
      trustServerCertificate: true,
      instanceName: null,
    });
  });

  it('defaults to encrypt=true, trustServerCertificate=false, no port', () => {
    const t = parseMssqlUrl('mssql://sa:pw@localhost/readpast');
    expect(t).toMatchObject({ encrypt: true, trustServerCertificate: false, port: null, database: 'readpast' });
  });

  it('accepts an instance name, IPv6 hosts and sqlserver://', () => {
    expect(parseMssqlUrl('mssql://u:p@host\\SQLEXPRESS/db')).toMatchObject({ server: 'host', instanceName: 'SQLEXPRESS', port: null });
    expect(parseMssqlUrl('mssql://u:p@host/db?instanceName=INST')).toMatchObject({ instanceName: 'INST' });
    expect(parseMssqlUrl('mssql://u:p@[::1]:1433/db')).toMatchObject({ server: '::1', port: 1433 });
    expect(parseMssqlUrl('sqlserver://u:p@h/db').server).toBe('h');
  });

  it('takes the last @ as the end of the credentials', () => {
    expect(parseMssqlUrl('mssql://user:p@ss@host/db')).toMatchObject({ user: 'user', password: 'p@ss', server: 'host' });
  });

  it('reads timeouts and the application name', () => {
    const t = parseMssqlUrl('mssql://u:p@h/db?connectTimeout=5000&appName=billing');
    expect(t).toMatchObject({ connectTimeoutMs: 5000, appName: 'billing' });
  });

  it('refuses malformed input without echoing it', () => {
    const cases = [
      `mssql://u:${SECRET}@/db`,
      `mssql://u:${SECRET}@host:notaport/db`,
      `mssql://u:${encodeURIComponent(SECRET)}@host/db?encrypt=maybe`,
      `mssql://u:${encodeURIComponent(SECRET)}@host/db?colour=blue`,
      'mssql://u:%E0%A4%A@host/db',
      'mssql://u:pa/ss@host/db',
      `mssql://u:${SECRET}#frag@host/db`,
      `mssql://u:${encodeURIComponent(SECRET)}@host:1433/db?instanceName=X`,
      `mssql://u:${encodeURIComponent(SECRET)}@host/a/b`,
    ];
    for (const c of cases) {
      const e = failure(c);
      expect(e.message, c).not.toContain(SECRET);
      expect(e.message, c).not.toContain(encodeURIComponent(SECRET));
      expect(e.message, c).not.toContain('pa/ss');
      expect(e.message).toMatch(/SQL Server/);
    }
  });
});

describe('ADO connection strings', () => {
  it('reads the usual keys and synonyms', () => {
    const t = parseMssqlUrl(
      `Server=tcp:db.local,1444;Database=readpast;User Id=app;Password=${'"' + SECRET.replace(/"/g, '""') + '"'};` +
        'Encrypt=yes;TrustServerCertificate=True;Connect Timeout=20;Application Name=jobs',
    );
    expect(t).toMatchObject({
      server: 'db.local',
      port: 1444,
      database: 'readpast',
      user: 'app',
      password: SECRET,
      encrypt: true,
      trustServerCertificate: true,
      connectTimeoutMs: 20_000,
      appName: 'jobs',
    });
    expect(parseMssqlUrl('Data Source=.\\SQLEXPRESS;Initial Catalog=x;UID=u;PWD=p')).toMatchObject({
      server: 'localhost',
      instanceName: 'SQLEXPRESS',
      database: 'x',
      user: 'u',
      password: 'p',
    });
  });

  it('splits quoted values with ; = and doubled quotes, and braces', () => {
    expect(splitAdo(`a=1; Password='x;y=''z'''; b = {p;q}}r} ;c=`)).toEqual([
      ['a', '1'],
      ['Password', "x;y='z'"],
      ['b', 'p;q}r'],
      ['c', ''],
    ]);
  });

  it('refuses what it cannot use, without echoing values', () => {
    const cases = [
      `Database=x;Password=${SECRET.replace(/;/g, '')}`,
      `Server=h;Password="${SECRET}`,
      `Server=h;Password=${SECRET.replace(/;/g, '')};Colour=blue`,
      `Server=h,notaport;Password=${SECRET.replace(/;/g, '')}`,
      'Server=h;Integrated Security=SSPI',
      `Server=h;Password='${SECRET}' trailing`,
    ];
    for (const c of cases) {
      const e = failure(c);
      expect(e.message, c).not.toContain(SECRET);
      expect(e.message, c).not.toContain(SECRET.replace(/;/g, ''));
    }
  });

  it('tells SQL Server strings from others', () => {
    expect(isMssqlUrl('mssql://u:p@h/db')).toBe(true);
    expect(isMssqlUrl('Server=h;Database=d')).toBe(true);
    expect(isMssqlUrl('  data source=h;initial catalog=d')).toBe(true);
    expect(isMssqlUrl('sqlite:data/readpast.db')).toBe(false);
    expect(isMssqlUrl('postgres://u:p@h/db')).toBe(false);
  });
});

describe('describe and driver config', () => {
  it('describes a target without its password', () => {
    const url = `mssql://app:${encodeURIComponent(SECRET)}@db:1433/readpast?trustServerCertificate=true`;
    const d = describeUrl(url);
    expect(d).toBe('mssql://app@db:1433/readpast?encrypt=true&trustServerCertificate=true');
    expect(d).not.toContain(SECRET);
    expect(describeUrl(`Server=h\\INST;Database=d;User Id=u;Password=${SECRET.replace(/;/g, '')}`)).toBe(
      'mssql://u@h\\INST/d?encrypt=true&trustServerCertificate=false',
    );
  });

  it('maps to a node-mssql config with the application name and pool given', () => {
    const cfg = toConfig(parseMssqlUrl('mssql://u:pw@h:1500/d?encrypt=false&trustServerCertificate=true'), {
      appName: 'readpast worker w1',
      pool: { min: 1, max: 1 },
      requestTimeout: 0,
    });
    expect(cfg).toMatchObject({
      server: 'h',
      port: 1500,
      database: 'd',
      user: 'u',
      password: 'pw',
      requestTimeout: 0,
      options: { encrypt: false, trustServerCertificate: true, appName: 'readpast worker w1', useUTC: true },
      pool: { min: 1, max: 1 },
    });
    const inst = toConfig(parseMssqlUrl('Server=h\\I;Database=d'));
    expect(inst.options?.instanceName).toBe('I');
    expect(inst.port).toBeUndefined();
    expect(toConfig(parseMssqlUrl('mssql://u:p@h/d'), { appName: 'x'.repeat(300) }).options?.appName).toHaveLength(128);
  });
});

describe('a server that cannot be reached', () => {
  it('fails naming the server, never the password (message, stack or the whole error)', async () => {
    // port 1 on loopback refuses at once; no SQL Server is needed
    const err = await openMssqlStore(`mssql://app:${encodeURIComponent(SECRET)}@127.0.0.1:1/db?connectTimeout=3000`, {
      log: () => {},
    }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain('127.0.0.1');
    for (const text of [err!.message, String(err!.stack), inspect(err, { depth: 10 }), JSON.stringify(err)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(encodeURIComponent(SECRET));
    }
  });
});
