import { describe, expect, it } from 'vitest';
import { authorized, loopbackHostHeader, sameOrigin } from './auth';
import { loadOidcConfig } from './config-oidc';
import { checkRequest, type RequestFacts } from './guard';
import { sealSession } from './session';

const creds = { user: 'admin', password: 's3cret' };
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const req = (over: Partial<RequestFacts>): RequestFacts => ({
  method: 'GET',
  api: true,
  authorization: null,
  host: '127.0.0.1:3000',
  origin: null,
  ...over,
});

describe('authorized', () => {
  it('accepts the right Basic credentials and bearer token only', async () => {
    expect(authorized(basic('admin', 's3cret'), creds, ['basic'])).toBe(true);
    expect(authorized(basic('admin', 's3cret!'), creds, ['basic'])).toBe(false);
    expect(authorized(basic('root', 's3cret'), creds, ['basic'])).toBe(false);
    expect(authorized('Bearer s3cret', creds, ['basic', 'bearer'])).toBe(true);
    expect(authorized('bearer s3cret', creds, ['basic', 'bearer'])).toBe(true);
    expect(authorized('Bearer s3cret', creds, ['basic'])).toBe(false);
    expect(authorized('Bearer s3cre', creds, ['bearer'])).toBe(false);
    expect(authorized(null, creds, ['basic', 'bearer'])).toBe(false);
    expect(authorized('Basic', creds, ['basic'])).toBe(false);
    expect(authorized(`Basic ${Buffer.from('nocolon').toString('base64')}`, creds, ['basic'])).toBe(false);
  });
});

describe('host and origin', () => {
  it('accepts loopback Host headers only', async () => {
    for (const h of ['127.0.0.1:3000', 'localhost:3000', 'localhost', '[::1]:3000']) expect(loopbackHostHeader(h)).toBe(true);
    for (const h of ['evil.example:3000', '192.168.0.2:3000', '', null]) expect(loopbackHostHeader(h)).toBe(false);
  });

  it('compares Origin with Host', async () => {
    expect(sameOrigin(null, '127.0.0.1:3000')).toBe(true);
    expect(sameOrigin('http://127.0.0.1:3000', '127.0.0.1:3000')).toBe(true);
    expect(sameOrigin('http://127.0.0.1:4000', '127.0.0.1:3000')).toBe(false);
    expect(sameOrigin('https://evil.example', '127.0.0.1:3000')).toBe(false);
    expect(sameOrigin('null', '127.0.0.1:3000')).toBe(false);
  });
});

describe('checkRequest', () => {
  it('without credentials: open to loopback, closed to other host names (DNS rebinding)', async () => {
    await expect(checkRequest(req({}), { auth: null })).resolves.toMatchObject({ ok: true });
    await expect(checkRequest(req({ host: 'attacker.example:3000' }), { auth: null })).resolves.toMatchObject({ ok: false, status: 403 });
  });

  it('with credentials: 401 with a challenge until they are given; bearer only for the API', async () => {
    await expect(checkRequest(req({}), { auth: creds })).resolves.toMatchObject({ ok: false, status: 401, challenge: true });
    await expect(
      checkRequest(req({ authorization: basic('admin', 's3cret'), host: 'dash.example' }), { auth: creds }),
    ).resolves.toMatchObject({
      ok: true,
    });
    await expect(checkRequest(req({ authorization: 'Bearer s3cret' }), { auth: creds })).resolves.toMatchObject({ ok: true });
    await expect(checkRequest(req({ api: false, authorization: 'Bearer s3cret' }), { auth: creds })).resolves.toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('refuses cross-site writes but not cross-site reads of nothing', async () => {
    await expect(checkRequest(req({ method: 'POST', origin: 'https://evil.example' }), { auth: null })).resolves.toMatchObject({
      ok: false,
      status: 403,
    });
    await expect(checkRequest(req({ method: 'POST', origin: 'http://127.0.0.1:3000' }), { auth: null })).resolves.toMatchObject({
      ok: true,
    });
    await expect(checkRequest(req({ method: 'POST' }), { auth: null })).resolves.toMatchObject({ ok: true });
  });
});

describe('roles', () => {
  const viewers = [
    { user: 'helpdesk', password: 'look' },
    { user: 'auditor', password: 'peek' },
  ];
  const config = { auth: creds, viewers };

  it('a viewer may read everything and change nothing; the operator may do both', async () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      await expect(checkRequest(req({ method, authorization: basic('helpdesk', 'look') }), config)).resolves.toMatchObject({
        ok: true,
        identity: { user: 'helpdesk', role: 'viewer' },
      });
    }
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) {
      await expect(checkRequest(req({ method, authorization: basic('auditor', 'peek') }), config)).resolves.toMatchObject({
        ok: false,
        status: 403,
      });
      await expect(checkRequest(req({ method, api: false, authorization: basic('helpdesk', 'look') }), config)).resolves.toMatchObject({
        ok: false,
        status: 403,
      });
      await expect(checkRequest(req({ method, authorization: basic('admin', 's3cret') }), config)).resolves.toMatchObject({
        ok: true,
        identity: { user: 'admin', role: 'operator' },
      });
    }
    // a viewer's password as a bearer token is that viewer
    await expect(checkRequest(req({ method: 'POST', authorization: 'Bearer peek' }), config)).resolves.toMatchObject({
      ok: false,
      status: 403,
    });
    await expect(checkRequest(req({ authorization: 'Bearer peek' }), config)).resolves.toMatchObject({
      ok: true,
      identity: { user: 'auditor' },
    });
    await expect(checkRequest(req({ method: 'POST', authorization: 'Bearer s3cret' }), config)).resolves.toMatchObject({
      ok: true,
      identity: { user: 'bearer', role: 'operator' },
    });
    // a viewer's name with another's password, or the operator's password, is nobody
    await expect(checkRequest(req({ authorization: basic('helpdesk', 'peek') }), config)).resolves.toMatchObject({
      ok: false,
      status: 401,
    });
    await expect(checkRequest(req({ authorization: basic('helpdesk', 's3cret') }), config)).resolves.toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('without credentials configured the caller is the operator `loopback`', async () => {
    await expect(checkRequest(req({ method: 'POST' }), { auth: null, viewers: [] })).resolves.toMatchObject({
      ok: true,
      identity: { user: 'loopback', role: 'operator' },
    });
  });
});

describe('sign-on sessions', () => {
  const oidc = loadOidcConfig({
    READPAST_OIDC_ISSUER: 'https://idp.example.test',
    READPAST_OIDC_CLIENT_ID: 'readpast',
    READPAST_SESSION_SECRET: 'a-session-secret-of-at-least-32-characters',
    READPAST_OIDC_OPERATORS: 'ops',
    READPAST_OIDC_VIEWERS: 'look',
  })!;
  const cookie = async (role: 'operator' | 'viewer' | null) =>
    `readpast_session=${await sealSession({ name: 'alice@example.com', sub: 's-1', role }, oidc.sessionSecret, 600)}`;

  it('a session is the person, with their role; none asks to sign in (not for a password)', async () => {
    await expect(checkRequest(req({ api: false, cookie: await cookie('operator') }), { auth: null, oidc })).resolves.toMatchObject({
      ok: true,
      identity: { user: 'alice@example.com', subject: 's-1', role: 'operator', via: 'session' },
    });
    await expect(checkRequest(req({ api: false }), { auth: null, oidc })).resolves.toMatchObject({
      ok: false,
      status: 401,
      signIn: true,
      challenge: false,
    });
    // with both, a password still works, and no session still means signing in
    await expect(checkRequest(req({ authorization: basic('admin', 's3cret') }), { auth: creds, oidc })).resolves.toMatchObject({
      ok: true,
      identity: { user: 'admin', via: 'password' },
    });
    await expect(checkRequest(req({}), { auth: creds, oidc })).resolves.toMatchObject({ status: 401, signIn: true, challenge: false });
    // sign-on is credentials: any host name may be served
    await expect(
      checkRequest(req({ host: 'readpast.example.com', cookie: await cookie('viewer') }), { auth: null, oidc }),
    ).resolves.toMatchObject({ ok: true });
  });

  it('a viewer may not write; a person in neither group is refused with the reason, every method', async () => {
    await expect(checkRequest(req({ method: 'POST', cookie: await cookie('viewer') }), { auth: null, oidc })).resolves.toMatchObject({
      ok: false,
      status: 403,
      error: expect.stringContaining('may only read'),
    });
    for (const method of ['GET', 'POST']) {
      const v = await checkRequest(req({ method, cookie: await cookie(null) }), { auth: null, oidc });
      expect(v).toMatchObject({ ok: false, status: 403, error: expect.stringContaining('none of the groups') });
      expect(!v.ok && v.session?.name).toBe('alice@example.com');
    }
  });

  it('a session sealed with another secret, or a tampered one, is no session', async () => {
    const foreign = await sealSession({ name: 'x', sub: 'x', role: 'operator' }, 'another-secret-of-at-least-32-characters!!', 600);
    const other = `readpast_session=${foreign}`;
    await expect(checkRequest(req({ cookie: other }), { auth: null, oidc })).resolves.toMatchObject({ ok: false, status: 401 });
    const good = await cookie('operator');
    const bad = `${good.slice(0, -6)}${good.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`;
    await expect(checkRequest(req({ cookie: bad }), { auth: null, oidc })).resolves.toMatchObject({ ok: false, status: 401 });
  });
});
