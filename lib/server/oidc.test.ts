// Token checks against real keys: the attacks on a JWT (alg none, HS256 keyed with the public key, another
// issuer, wrong audience, expired, missing or wrong nonce, an ID token offered as an access token), machine
// clients' access tokens from a real provider (oidc-provider, two instances: the configured one and another),
// and the provider's key rotation followed.
import { createServer, type Server } from 'node:http';
import { createHmac } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOidcConfig, type OidcConfig } from './config-oidc';
import { checkRequest } from './guard';
import { verifyAccessToken, verifyJwt } from './oidc';
import { API_AUDIENCE, OTHER_AUDIENCE, startTestProvider, type TestProvider } from './test-support/oidc-provider';

const ISSUER = 'https://idp.example.test';
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function keys(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const pub: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { privateKey, pub };
}

describe('verifyJwt', async () => {
  const good = await keys('k1');
  const other = await keys('k2');
  const jwks = createLocalJWKSet({ keys: [good.pub] });
  const opts = { issuer: ISSUER, audience: 'client-1', algorithms: ['RS256'] };
  const sign = (claims: Record<string, unknown>, key = good.privateKey, kid = 'k1', exp: string | number = '5m') =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setIssuedAt().setExpirationTime(exp).sign(key);
  const base = { iss: ISSUER, aud: 'client-1', sub: 'alice' };

  it('accepts a token signed by the provider, for this audience, with the nonce asked for', async () => {
    await expect(verifyJwt(await sign({ ...base, nonce: 'n-1' }), jwks, { ...opts, nonce: 'n-1' })).resolves.toMatchObject({
      sub: 'alice',
    });
    await expect(verifyJwt(await sign(base), jwks, opts)).resolves.toMatchObject({ sub: 'alice' });
  });

  it('refuses alg=none', async () => {
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...base, exp: Math.floor(Date.now() / 1000) + 300 })}.`;
    await expect(verifyJwt(none, jwks, opts)).rejects.toThrow();
    await expect(verifyJwt(none, jwks, { ...opts, algorithms: ['none', 'RS256'] })).rejects.toThrow();
  });

  it('refuses HS256 keyed with the provider’s public key (algorithm confusion)', async () => {
    const header = b64({ alg: 'HS256', kid: 'k1', typ: 'JWT' });
    const payload = b64({ ...base, exp: Math.floor(Date.now() / 1000) + 300 });
    for (const secret of [JSON.stringify(good.pub), good.pub.n!, Buffer.from(good.pub.n!, 'base64url')]) {
      const sig = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      await expect(verifyJwt(`${header}.${payload}.${sig}`, jwks, opts)).rejects.toThrow();
      // even if HS256 were listed by a provider's metadata
      await expect(verifyJwt(`${header}.${payload}.${sig}`, jwks, { ...opts, algorithms: ['HS256', 'RS256'] })).rejects.toThrow();
    }
  });

  it('refuses another issuer, another key, another audience, an expired token', async () => {
    await expect(verifyJwt(await sign({ ...base, iss: 'https://other.example.test' }), jwks, opts)).rejects.toThrow(/iss/);
    await expect(verifyJwt(await sign(base, other.privateKey, 'k1'), jwks, opts)).rejects.toThrow(/signature/);
    await expect(verifyJwt(await sign(base, other.privateKey, 'k2'), jwks, opts)).rejects.toThrow();
    await expect(verifyJwt(await sign({ ...base, aud: 'client-2' }), jwks, opts)).rejects.toThrow(/aud/);
    const past = Math.floor(Date.now() / 1000) - 120;
    await expect(verifyJwt(await sign(base, good.privateKey, 'k1', past), jwks, opts)).rejects.toThrow(/exp/);
  });

  it('refuses an ID token without the nonce, or with another', async () => {
    await expect(verifyJwt(await sign(base), jwks, { ...opts, nonce: 'n-1' })).rejects.toThrow(/nonce/);
    await expect(verifyJwt(await sign({ ...base, nonce: 'n-2' }), jwks, { ...opts, nonce: 'n-1' })).rejects.toThrow(/nonce/);
  });

  it('refuses an ID token (it has a nonce) offered as an access token', async () => {
    await expect(verifyJwt(await sign({ ...base, nonce: 'n-1' }), jwks, opts)).rejects.toThrow(/not an access token/);
  });
});

const PORT = 3333;
const OTHER_PORT = 3334;
const ROTATING_PORT = 3335;
const SECRET = 'a-session-secret-of-at-least-32-characters';

const configFor = (issuer: string): OidcConfig =>
  loadOidcConfig({
    READPAST_OIDC_ISSUER: issuer,
    READPAST_OIDC_CLIENT_ID: 'readpast-dashboard',
    READPAST_SESSION_SECRET: SECRET,
    READPAST_OIDC_OPERATORS: 'readpast-operators',
    READPAST_OIDC_VIEWERS: 'readpast-viewers',
    READPAST_OIDC_AUDIENCE: API_AUDIENCE,
  })!;

describe('machine clients’ access tokens (client credentials, a real provider)', () => {
  let idp: TestProvider;
  let otherIdp: TestProvider;
  let cfg: OidcConfig;
  beforeAll(async () => {
    idp = await startTestProvider(PORT, 'http://127.0.0.1:3330');
    otherIdp = await startTestProvider(OTHER_PORT, 'http://127.0.0.1:3330');
    cfg = configFor(idp.issuer);
  });
  afterAll(async () => {
    await idp?.stop();
    await otherIdp?.stop();
  });

  const request = (authorization: string, method = 'GET') => ({
    method,
    api: true,
    authorization,
    host: '127.0.0.1:3330',
    origin: null,
  });

  it('accepts a token for READPAST_OIDC_AUDIENCE with the role its groups claim gives', async () => {
    const op = await idp.machineToken('ci-operator', API_AUDIENCE);
    expect(await verifyAccessToken(cfg, op)).toEqual({
      user: 'client ci-operator',
      subject: 'ci-operator',
      role: 'operator',
      via: 'token',
    });
    await expect(checkRequest(request(`Bearer ${op}`, 'POST'), { auth: null, oidc: cfg })).resolves.toMatchObject({ ok: true });
    const viewer = await idp.machineToken('ci-viewer', API_AUDIENCE);
    await expect(checkRequest(request(`Bearer ${viewer}`), { auth: null, oidc: cfg })).resolves.toMatchObject({ ok: true });
    await expect(checkRequest(request(`Bearer ${viewer}`, 'POST'), { auth: null, oidc: cfg })).resolves.toMatchObject({
      ok: false,
      status: 403,
    });
  });

  it('refuses a token for another audience, from another issuer, or on a page', async () => {
    const wrongAudience = await idp.machineToken('ci-operator', OTHER_AUDIENCE);
    expect(await verifyAccessToken(cfg, wrongAudience)).toBeNull();
    await expect(checkRequest(request(`Bearer ${wrongAudience}`), { auth: null, oidc: cfg })).resolves.toMatchObject({
      ok: false,
      status: 401,
    });
    const foreign = await otherIdp.machineToken('ci-operator', API_AUDIENCE);
    expect(await verifyAccessToken(cfg, foreign)).toBeNull();
    // with no audience configured, no access token is accepted
    expect(await verifyAccessToken({ ...cfg, audience: null }, await idp.machineToken('ci-operator', API_AUDIENCE))).toBeNull();
    const op = await idp.machineToken('ci-operator', API_AUDIENCE);
    await expect(checkRequest({ ...request(`Bearer ${op}`), api: false }, { auth: null, oidc: cfg })).resolves.toMatchObject({
      ok: false,
      status: 401,
    });
  });
});

describe('the provider’s key rotation', () => {
  let server: Server;
  let served: JWK[] = [];
  const issuer = `http://127.0.0.1:${ROTATING_PORT}`;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const body =
        req.url === '/.well-known/openid-configuration'
          ? {
              issuer,
              authorization_endpoint: `${issuer}/auth`,
              token_endpoint: `${issuer}/token`,
              jwks_uri: `${issuer}/jwks`,
              response_types_supported: ['code'],
              subject_types_supported: ['public'],
              id_token_signing_alg_values_supported: ['RS256'],
            }
          : req.url === '/jwks'
            ? { keys: served }
            : null;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((r) => server.listen(ROTATING_PORT, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('follows a new signing key and drops the retired one', { timeout: 120_000 }, async () => {
    const cfg = configFor(issuer);
    const first = await keys('2026-01');
    const second = await keys('2026-02');
    const token = (k: typeof first) =>
      new SignJWT({ client_id: 'ci', groups: ['readpast-operators'] })
        .setProtectedHeader({ alg: 'RS256', kid: k.pub.kid! })
        .setIssuer(issuer)
        .setAudience(API_AUDIENCE)
        .setSubject('ci')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(k.privateKey);
    served = [first.pub];
    expect(await verifyAccessToken(cfg, await token(first))).toMatchObject({ role: 'operator' });
    served = [second.pub];
    // the new key id is fetched (once the cooldown since the last fetch has passed)
    await expect
      .poll(async () => (await verifyAccessToken(cfg, await token(second)))?.role ?? null, { timeout: 60_000, interval: 500 })
      .toBe('operator');
    expect(await verifyAccessToken(cfg, await token(first))).toBeNull();
  });
});
