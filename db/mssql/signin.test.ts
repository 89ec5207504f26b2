// Signing in, as the real driver (mssql, tedious) sends it to a stand-in TDS endpoint (test-support/fake-tds.ts):
// an access token from the library's callback travels in LOGIN7's FEDAUTH feature, asked again for
// every new connection and never as a user name or password; a DOMAIN\user account signs in by NTLM
// (an SSPI NEGOTIATE naming the domain, no SQL login name); a SQL login as before. The Entra ID modes
// that ask an identity endpoint for their token (Default, Managed Identity, Service Principal,
// Password) announce FEDAUTH (ADAL) in LOGIN7; the token itself would follow the server's FEDAUTHINFO
// from that endpoint (IMDS, login.microsoftonline.com), which is not here: this stand-in acknowledges
// the login without asking, so only what the client announces is checked.
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTds } from './test-support/fake-tds';
import { openMssqlStore, type MssqlStore } from './store';

const quiet = () => {};
const PW = 'Pw-n0t-in-any-message';
let tds: FakeTds | null = null;
let store: MssqlStore | null = null;

afterEach(async () => {
  await store?.close();
  await tds?.stop();
  store = null;
  tds = null;
});

async function fake(): Promise<FakeTds> {
  // each answer takes a while, so that statements at once need connections of their own
  tds = new FakeTds(() => ({ sets: [{ columns: [['one', 'int']], rows: [[1]] }], delayMs: 150 }));
  await tds.start();
  return tds;
}

const base = (t: FakeTds) => `Server=127.0.0.1,${t.port};Database=fake;Encrypt=false;TrustServerCertificate=true`;

describe('signing in over TDS', () => {
  it('an access token from the callback is sent in FEDAUTH, a new one for every new connection', async () => {
    const t = await fake();
    let n = 0;
    const tokens: string[] = [];
    const accessToken = async () => {
      const tok = `eyJ0eXAi.token-${++n}`;
      tokens.push(tok);
      return tok;
    };
    store = await openMssqlStore(`${base(t)};Authentication=Active Directory Access Token`, { log: quiet, migrate: false, accessToken });
    // two statements at once: the shared pool opens a second connection for the second
    await store.reads.countsByQueue().catch(() => []);
    await Promise.all([1, 2, 3].map(() => store!.reads.countsByQueue().catch(() => [])));
    const logins = t.logins('readpast');
    expect(logins.length).toBeGreaterThanOrEqual(2);
    for (const c of logins) {
      expect(c.login.fedAuth?.library).toBe('securitytoken');
      expect(c.login.userName).toBe('');
      expect(c.login.sspi).toBeNull();
    }
    const sent = logins.map((c) => c.login.fedAuth!.token);
    // each login carried a token the callback returned, and not the same one twice
    for (const s of sent) expect(tokens).toContain(s);
    expect(new Set(sent).size).toBe(sent.length);
    expect(store.description).toContain('authentication=ActiveDirectoryAccessToken');
    for (const text of [store.description, inspect(store.description)]) for (const tok of tokens) expect(text).not.toContain(tok);
  });

  it('a URL without Authentication and a token callback signs in with the token', async () => {
    const t = await fake();
    store = await openMssqlStore(base(t), { log: quiet, migrate: false, accessToken: async () => 'tok-plain' });
    await store.reads.countsByQueue().catch(() => []);
    expect(t.logins('readpast')[0]?.login.fedAuth).toEqual({ library: 'securitytoken', token: 'tok-plain' });
  });

  it('the migration connection signs in with the token too', async () => {
    const t = await fake();
    // the fake is no SQL Server: the migration stops at its first question, after signing in
    await openMssqlStore(base(t), { log: quiet, accessToken: async () => 'tok-migrate' }).catch(() => null);
    const logins = t.logins('readpast migrate');
    expect(logins.length).toBeGreaterThan(0);
    for (const c of logins) expect(c.login.fedAuth).toEqual({ library: 'securitytoken', token: 'tok-migrate' });
  });

  it('a failing callback fails the connection with its message, and the next connection asks again', async () => {
    const t = await fake();
    let calls = 0;
    store = await openMssqlStore(`${base(t)};Authentication=Active Directory Access Token`, {
      log: quiet,
      migrate: false,
      accessToken: async () => {
        calls++;
        if (calls === 1) throw new Error('identity endpoint unreachable');
        return 'tok-second';
      },
    });
    await expect(store.reads.countsByQueue()).rejects.toThrow(/access token callback failed: identity endpoint unreachable/);
    await store.reads.countsByQueue().catch(() => []);
    expect(t.logins('readpast').map((c) => c.login.fedAuth?.token)).toEqual(['tok-second']);
  });

  it('Access Token without a callback is refused at open, before any connection', async () => {
    const t = await fake();
    await expect(openMssqlStore(`${base(t)};Authentication=Active Directory Access Token`, { log: quiet, migrate: false })).rejects.toThrow(
      /needs a token callback/,
    );
    expect(t.connections).toHaveLength(0);
  });

  it('DOMAIN\\user signs in by NTLM: an SSPI NEGOTIATE naming the domain, no SQL login, no password on the wire', async () => {
    const t = await fake();
    store = await openMssqlStore(`${base(t)};User Id=corp\\svc;Password=${PW}`, { log: quiet, migrate: false });
    await store.reads.countsByQueue().catch(() => []);
    const c = t.logins('readpast')[0]!;
    expect(c.login.userName).toBe('');
    expect(c.login.fedAuth).toBeNull();
    expect(c.login.sspi?.subarray(0, 8).toString('latin1')).toBe('NTLMSSP\0');
    expect(c.login.sspi?.readUInt32LE(8)).toBe(1); // NEGOTIATE
    expect(c.login.sspi?.toString('latin1')).toContain('CORP');
    expect(c.login.sspi?.toString('latin1')).not.toContain(PW);
    expect(store.description).toBe(`mssql://corp%5Csvc@127.0.0.1:${t.port}/fake?encrypt=false&trustServerCertificate=true`);
  });

  it('Entra ID modes that get their token from @azure/identity announce FEDAUTH (ADAL), with no user name or password', async () => {
    const t = await fake();
    const modes: [string, number][] = [
      ['Authentication=Active Directory Default', 2],
      ['Authentication=Active Directory Managed Identity', 2],
      [
        `Authentication=Active Directory Service Principal;User Id=0b6a3c2e-1111-4222-8333-944445555666;Password=${PW};` +
          'Tenant Id=72f988bf-86f1-41af-91ab-2d7cd011db47',
        2,
      ],
      [
        `Authentication=Active Directory Password;User Id=ann@corp.example;Password=${PW};Client Id=0b6a3c2e-1111-4222-8333-944445555666`,
        1,
      ],
    ];
    for (const [auth, workflow] of modes) {
      const before = t.connections.length;
      const s = await openMssqlStore(`${base(t)};${auth}`, { log: quiet, migrate: false });
      await s.reads.countsByQueue().catch(() => []);
      await s.close();
      const c = t.connections[before]!;
      expect(c.login.fedAuth, auth).toEqual({ library: 'adal', token: null, workflow });
      expect(c.login.userName, auth).toBe('');
      expect(c.login.sspi, auth).toBeNull();
    }
  });

  it('a SQL login sends its name as before', async () => {
    const t = await fake();
    store = await openMssqlStore(t.url(), { log: quiet, migrate: false });
    await store.reads.countsByQueue().catch(() => []);
    expect(t.logins('readpast')[0]?.login).toMatchObject({ userName: 'readpast', fedAuth: null, sspi: null });
  });
});
