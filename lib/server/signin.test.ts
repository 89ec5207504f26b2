// The /auth/* handlers' HTTP, against a real provider (oidc-provider): the redirect to sign in, the cookies'
// attributes behind a TLS-terminating proxy, a callback that cannot complete, sign-out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOidcConfig, type OidcConfig } from './config-oidc';
import { sealSession } from './session';
import { handleCallback, handleLogin, handleLogout, publicOrigin, redirectToSignIn } from './signin';
import { DASHBOARD_CLIENT, startTestProvider, type TestProvider } from './test-support/oidc-provider';

const PORT = 3336;
const SECRET = 'a-session-secret-of-at-least-32-characters';
const DASH = 'http://127.0.0.1:3330';

let idp: TestProvider;
let cfg: OidcConfig;
beforeAll(async () => {
  idp = await startTestProvider(PORT, DASH);
  cfg = loadOidcConfig({
    READPAST_OIDC_ISSUER: idp.issuer,
    READPAST_OIDC_CLIENT_ID: DASHBOARD_CLIENT.id,
    READPAST_OIDC_CLIENT_SECRET: DASHBOARD_CLIENT.secret,
    READPAST_SESSION_SECRET: SECRET,
    READPAST_OIDC_OPERATORS: 'readpast-operators',
  })!;
});
afterAll(() => idp?.stop());

const request = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  new Request(url, { method, headers: { host: new URL(url).host, ...headers } });

describe('the dashboard’s public origin', () => {
  it('is READPAST_PUBLIC_URL, else the Host with the scheme a proxy reports', () => {
    const req = request('http://10.0.0.5:3000/x', { host: 'dash.example', 'x-forwarded-proto': 'https, http' });
    expect(publicOrigin(req, { publicUrl: null })).toBe('https://dash.example');
    expect(publicOrigin(req, { publicUrl: 'https://readpast.example.com' })).toBe('https://readpast.example.com');
    expect(publicOrigin(request('http://127.0.0.1:3330/'), { publicUrl: null })).toBe('http://127.0.0.1:3330');
    expect(publicOrigin(request('http://127.0.0.1:3330/', { 'x-forwarded-proto': 'gopher' }), { publicUrl: null })).toBe(
      'http://127.0.0.1:3330',
    );
  });
});

describe('sign-in', () => {
  it('sends the browser to the provider with PKCE, state and nonce, and keeps them in a sealed cookie', async () => {
    const res = await handleLogin(request(`${DASH}/auth/login?returnTo=/tasks`), cfg);
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(to.searchParams.get('redirect_uri')).toBe(`${DASH}/auth/callback`);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('scope')).toBe('openid profile email');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^readpast_signin_[\w-]{24}=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
    // state, nonce and verifier are encrypted: the ciphertext does not read as them
    const sealed = cookie.split(';')[0]!.split('=')[1]!;
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString('latin1')).not.toContain(to.searchParams.get('state')!);
  });

  it('marks its cookies Secure behind a TLS-terminating proxy, with an https redirect URI', async () => {
    const res = await redirectToSignIn(request('http://10.0.0.5:3000/', { host: 'dash.example', 'x-forwarded-proto': 'https' }), cfg, '/');
    expect(new URL(res.headers.get('location')!).searchParams.get('redirect_uri')).toBe('https://dash.example/auth/callback');
    expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('refuses a callback it did not start, and one the provider refused, spending the sign-in cookie', async () => {
    const unknown = await handleCallback(request(`${DASH}/auth/callback?code=abc&state=${'s'.repeat(43)}`), cfg);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('not started in this browser');
    expect(unknown.headers.get('set-cookie')).toMatch(/^readpast_signin_s{24}=; Path=\/; Max-Age=0/);
    const denied = await handleCallback(
      request(`${DASH}/auth/callback?error=access_denied&error_description=nope&state=${'s'.repeat(43)}`),
      cfg,
    );
    expect(denied.status).toBe(400);
    expect(await denied.text()).toContain('access_denied: nope');
    expect(denied.headers.get('set-cookie')).toContain('Max-Age=0');
  });
});

describe('sign-out', () => {
  it('shows a form on GET, refuses another site’s POST, and ends the session here and at the provider', async () => {
    const form = await handleLogout(request(`${DASH}/auth/logout`), cfg);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('action="/auth/logout"');
    const foreign = await handleLogout(request(`${DASH}/auth/logout`, { origin: 'https://evil.example' }, 'POST'), cfg);
    expect(foreign.status).toBe(403);
    const session = await sealSession({ name: 'alice', sub: 'alice', role: 'operator', idToken: 'h.p.s' }, SECRET, 600);
    const res = await handleLogout(request(`${DASH}/auth/logout`, { origin: DASH, cookie: `readpast_session=${session}` }, 'POST'), cfg);
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/^readpast_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
    const to = new URL(res.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe(`${idp.issuer}/session/end`);
    expect(Object.fromEntries(to.searchParams)).toEqual({
      post_logout_redirect_uri: `${DASH}/auth/signed-out`,
      client_id: DASHBOARD_CLIENT.id,
      id_token_hint: 'h.p.s',
    });
  });
});
