import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openMssqlStore, withAccessToken } from './store';
import { ConnectionStringError, describe as describeUrl, isMssqlUrl, parseMssqlUrl, signInLabel, splitAdo, toConfig } from './url';

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

  it('an NTLM account, an Entra ID client secret and a token leave no secret in the error either', async () => {
    const pw = SECRET.replace(/;/g, '');
    const inputs: [string, { accessToken?: () => Promise<string> }][] = [
      [`Server=127.0.0.1,1;Database=db;Connect Timeout=3;User Id=CORP\\svc;Password=${pw}`, {}],
      [
        `Server=127.0.0.1,1;Database=db;Connect Timeout=3;Authentication=Active Directory Service Principal;` +
          `User Id=0b6a3c2e-1111-4222-8333-944445555666;Password=${pw};Tenant Id=72f988bf-86f1-41af-91ab-2d7cd011db47`,
        {},
      ],
      ['Server=127.0.0.1,1;Database=db;Connect Timeout=3;Authentication=Active Directory Access Token', { accessToken: async () => pw }],
    ];
    for (const [url, extra] of inputs) {
      const err = await openMssqlStore(url, { log: () => {}, ...extra }).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err, url).toBeInstanceOf(Error);
      for (const text of [err!.message, String(err!.stack), inspect(err, { depth: 10 }), JSON.stringify(err)])
        expect(text).not.toContain(pw);
    }
  });
});

describe('signing in: SQL logins, Windows (NTLM) and Microsoft Entra ID', () => {
  const PW = SECRET.replace(/;/g, '');
  const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
  const CLIENT = '0b6a3c2e-1111-4222-8333-944445555666';
  /** every form a mode is written in must give the same target and driver config */
  const cases: [label: string, inputs: string[], auth: string, driver: unknown][] = [
    [
      'SQL login (default and Sql Password)',
      [`Server=h;Database=d;User Id=app;Password=${PW}`, `Server=h;User Id=app;Password=${PW};Authentication=Sql Password`],
      'sql',
      undefined,
    ],
    [
      'NTLM from DOMAIN\\user',
      [
        `Server=h;User Id=CORP\\svc;Password=${PW}`,
        `Server=h;User Id=svc;Domain=CORP;Password=${PW}`,
        `mssql://CORP%5Csvc:${encodeURIComponent(PW)}@h/d`,
        `mssql://svc:${encodeURIComponent(PW)}@h/d?domain=CORP`,
      ],
      'ntlm',
      { type: 'ntlm', options: { domain: 'CORP', userName: 'svc', password: PW } },
    ],
    [
      'Active Directory Default',
      [
        'Server=h.database.windows.net;Database=d;Authentication=Active Directory Default',
        'mssql://h/d?authentication=ActiveDirectoryDefault',
      ],
      'entra-default',
      { type: 'azure-active-directory-default', options: {} },
    ],
    [
      'Active Directory Managed Identity, system-assigned',
      [
        'Server=h;Authentication=Active Directory Managed Identity',
        'Server=h;Authentication=ActiveDirectoryMSI',
        'mssql://h/d?authentication=activedirectorymanagedidentity',
      ],
      'entra-managed-identity',
      { type: 'azure-active-directory-msi-vm', options: {} },
    ],
    [
      'Active Directory Managed Identity, user-assigned (User Id = client id)',
      [
        `Server=h;Authentication=Active Directory Managed Identity;User Id=${CLIENT}`,
        `mssql://${CLIENT}@h/d?authentication=ActiveDirectoryManagedIdentity`,
      ],
      'entra-managed-identity',
      { type: 'azure-active-directory-msi-vm', options: { clientId: CLIENT } },
    ],
    [
      'Active Directory Service Principal',
      [
        `Server=h;Authentication=Active Directory Service Principal;User Id=${CLIENT};Password=${PW};Tenant Id=${TENANT}`,
        `mssql://${CLIENT}:${encodeURIComponent(PW)}@h/d?authentication=ActiveDirectoryServicePrincipal&tenantId=${TENANT}`,
      ],
      'entra-service-principal',
      { type: 'azure-active-directory-service-principal-secret', options: { clientId: CLIENT, clientSecret: PW, tenantId: TENANT } },
    ],
    [
      'Active Directory Password',
      [`Server=h;Authentication=Active Directory Password;User Id=ann@corp.example;Password=${PW};Client Id=${CLIENT}`],
      'entra-password',
      { type: 'azure-active-directory-password', options: { userName: 'ann@corp.example', password: PW, clientId: CLIENT } },
    ],
    [
      'Active Directory Access Token (the token comes per connection)',
      ['Server=h;Database=d;Authentication=Active Directory Access Token'],
      'entra-access-token',
      { type: 'azure-active-directory-access-token', options: { token: '' } },
    ],
  ];

  for (const [label, inputs, auth, driver] of cases) {
    it(`${label}: parsed, mapped to the driver, described without a secret`, () => {
      for (const input of inputs) {
        const t = parseMssqlUrl(input);
        expect(t.authentication, input).toBe(auth);
        const cfg = toConfig(t);
        expect(cfg.authentication, input).toEqual(driver);
        if (driver !== undefined) {
          // the driver takes user and password from `authentication` only
          expect(cfg.user, input).toBeUndefined();
          expect(cfg.password, input).toBeUndefined();
        }
        const d = describeUrl(input);
        expect(d).not.toContain(PW);
        expect(d).not.toContain(encodeURIComponent(PW));
        expect(signInLabel(t)).not.toContain(PW);
        // what describe prints reads back as the same sign-in (where the mode needs no secret)
        if (!['ntlm', 'entra-service-principal', 'entra-password'].includes(auth)) expect(parseMssqlUrl(d).authentication, d).toBe(auth);
      }
    });
  }

  it('describes the mode, and NTLM as DOMAIN\\user', () => {
    expect(describeUrl(`Server=h;Database=d;User Id=CORP\\svc;Password=${PW}`)).toBe(
      'mssql://CORP%5Csvc@h/d?encrypt=true&trustServerCertificate=false',
    );
    expect(describeUrl('Server=h;Database=d;Authentication=Active Directory Default')).toBe(
      'mssql://h/d?encrypt=true&trustServerCertificate=false&authentication=ActiveDirectoryDefault',
    );
    expect(signInLabel(parseMssqlUrl(`Server=h;User Id=CORP\\svc;Password=${PW}`))).toBe('Windows authentication (NTLM) as CORP\\svc');
    expect(signInLabel(parseMssqlUrl(`Server=h;Authentication=Active Directory Managed Identity;User Id=${CLIENT}`))).toContain(CLIENT);
  });

  it('refuses integrated security and what a mode lacks, saying what works, never echoing a secret', () => {
    const refusals: [string, RegExp][] = [
      ['Server=h;Integrated Security=SSPI', /NTLM with User Id=DOMAIN\\user and its Password, or with Microsoft Entra ID/],
      ['Server=h;Trusted_Connection=yes', /not supported; on Node/],
      ['mssql://h/d?integratedSecurity=true', /not supported; on Node/],
      ['Server=h;Authentication=Active Directory Integrated', /not supported; on Node/],
      ['Server=h;Authentication=Active Directory Interactive', /not supported/],
      ['Server=h;Authentication=Active Directory Workload Identity', /use Active Directory Default/],
      ['Server=h;Authentication=Kerberos', /Authentication must be Sql Password, Active Directory Default/],
      [`Server=h;User Id=CORP\\svc`, /needs a User Id and its Password/],
      [`Server=h;User Id=\\svc;Password=${PW}`, /DOMAIN\\user/],
      [`Server=h;User Id=CORP\\svc;Domain=OTHER;Password=${PW}`, /domain of User Id and Domain differ/],
      [
        `Server=h;Authentication=Active Directory Default;User Id=CORP\\svc;Password=${PW}`,
        /Windows account \(NTLM\), not a Microsoft Entra ID/,
      ],
      [`Server=h;Authentication=Active Directory Default;Password=${PW}`, /takes no Password/],
      [`Server=h;Authentication=Active Directory Managed Identity;Password=${PW}`, /takes no Password/],
      [`Server=h;Authentication=Active Directory Service Principal;User Id=${CLIENT};Password=${PW}`, /needs a Tenant Id/],
      [`Server=h;Authentication=Active Directory Service Principal;Tenant Id=${TENANT};Password=${PW}`, /needs a User Id/],
      [
        `Server=h;Authentication=Active Directory Service Principal;User Id=${CLIENT};Tenant Id=${TENANT}`,
        /needs a Password \(the client secret\)/,
      ],
      [`Server=h;Authentication=Active Directory Password;User Id=ann;Password=${PW}`, /needs a Client Id/],
      [`Server=h;Authentication=Active Directory Access Token;Password=${PW}`, /takes no Password/],
      [`Server=h;Domain=CORP;Authentication=Active Directory Default`, /Domain is for Windows accounts/],
    ];
    for (const [input, message] of refusals) {
      const e = failure(input);
      expect(e.message, input).toMatch(message);
      expect(e.message, input).not.toContain(PW);
    }
  });

  it('a token callback: required by Access Token, makes a URL without Authentication a token sign-in, refused beside another', () => {
    const token = async () => 'tok';
    expect(() => withAccessToken(parseMssqlUrl('Server=h;Authentication=Active Directory Access Token'), undefined)).toThrow(
      /needs a token callback: openReadpast\(\{ accessToken/,
    );
    expect(withAccessToken(parseMssqlUrl('Server=h;Authentication=Active Directory Access Token'), token).authentication).toBe(
      'entra-access-token',
    );
    expect(withAccessToken(parseMssqlUrl('Server=h;Database=d'), token).authentication).toBe('entra-access-token');
    expect(() => withAccessToken(parseMssqlUrl(`Server=h;User Id=u;Password=${PW}`), token)).toThrow(/must not name another sign-in/);
    expect(() => withAccessToken(parseMssqlUrl('Server=h;Authentication=Active Directory Default'), token)).toThrow(
      /must not name another sign-in/,
    );
    expect(() => withAccessToken(parseMssqlUrl('Server=h'), 'tok')).toThrow(/accessToken must be a function/);
    expect(withAccessToken(parseMssqlUrl('Server=h;Authentication=Active Directory Default'), undefined).authentication).toBe(
      'entra-default',
    );
  });
});
