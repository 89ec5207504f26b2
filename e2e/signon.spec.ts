// Sign-on with OpenID Connect, in Chromium against a real provider (oidc-provider, its development login):
// operators, viewers and people in neither group; sign-out at the provider too; machine clients' access
// tokens on the API; and the attacks: tampered state, replayed code, another issuer's code and tokens,
// forged tokens (alg none, HS256 keyed with the public key), expired and tampered session cookies, and an
// open redirect through the return path.
import { expect as baseExpect, test, type BrowserContext, type Page } from '@playwright/test';
import { createHmac } from 'node:crypto';
import { sealSession } from '../lib/server/session';
import { API_AUDIENCE, OTHER_AUDIENCE } from '../lib/server/test-support/oidc-provider';
import { unique, waitForStatus } from './helpers';
import { BASE, blockFonts, providerLogin, SESSION_SECRET, signIn, startWorld, type World } from './signon-support';

// a dashboard, two providers and a browser on a shared machine: generous deadlines for what the page shows
const expect = baseExpect.configure({ timeout: 30_000 });

let world: World;

// each test signs in at the provider, some several times
test.describe.configure({ mode: 'serial', timeout: 180_000 });

test.beforeAll(async () => {
  test.setTimeout(150_000);
  world = await startWorld();
});

test.afterAll(async () => {
  await world?.stop();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface AuditRow {
  actor: string;
  source: string;
  action: string;
  target: string;
}

async function auditOf(token: string, target: string): Promise<AuditRow[]> {
  const res = await fetch(`${BASE}/api/audit?target=${encodeURIComponent(target)}`, { headers: bearer(token) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: AuditRow[] }).items;
}

/** A dead task, made through the API by the operator machine client. */
async function deadTask(opToken: string): Promise<string> {
  const res = await fetch(`${BASE}/api/tasks`, {
    method: 'POST',
    headers: { ...bearer(opToken), 'content-type': 'application/json' },
    body: JSON.stringify({ command: 'demo.fail', queue: unique('signon'), maxAttempts: 1, payload: { message: 'boom' } }),
  });
  const body = await res.text();
  expect(res.status, body).toBe(201);
  const { token } = JSON.parse(body) as { token: string };
  const api = { get: (url: string) => fetch(BASE + url, { headers: bearer(opToken) }) };
  await expect
    .poll(async () => ((await (await api.get(`/api/tasks/${token}`)).json()) as { status: string }).status, { timeout: 30_000 })
    .toBe('dead');
  return token;
}

async function sessionCookie(ctx: BrowserContext) {
  return (await ctx.cookies(BASE)).find((c) => c.name === 'readpast_session');
}

test('the API answers 401 JSON without credentials, and a page goes straight to the provider', async () => {
  const api = await fetch(`${BASE}/api/stats`, { redirect: 'manual' });
  expect(api.status).toBe(401);
  expect(api.headers.get('content-type')).toContain('application/json');
  expect(await api.json()).toMatchObject({ error: 'authentication required', signIn: '/auth/login' });
  const page = await fetch(`${BASE}/tasks?status=dead`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const to = new URL(page.headers.get('location')!);
  expect(`${to.origin}${to.pathname}`).toBe(`${world.idp.issuer}/auth`);
  expect(Object.fromEntries(to.searchParams)).toMatchObject({
    client_id: 'readpast-dashboard',
    response_type: 'code',
    redirect_uri: `${BASE}/auth/callback`,
    code_challenge_method: 'S256',
  });
  for (const p of ['state', 'nonce', 'code_challenge']) expect(to.searchParams.get(p)).toMatch(/^[\w-]{40,}$/);
  const cookie = page.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^readpast_signin_[\w-]{24}=/);
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Lax/);
  expect(cookie).toMatch(/Max-Age=600/);
  // a server action without a session is refused, not redirected
  const action = await fetch(`${BASE}/tasks`, { method: 'POST', headers: { 'next-action': 'abc' }, redirect: 'manual' });
  expect(action.status).toBe(401);
});

test('machine clients: an access token for the dashboard’s audience is accepted with its role; others are 401', async () => {
  const op = await world.idp.machineToken('ci-operator', API_AUDIENCE);
  expect((await fetch(`${BASE}/api/stats`, { headers: bearer(op) })).status).toBe(200);
  expect(await (await fetch(`${BASE}/api/me`, { headers: bearer(op) })).json()).toEqual({
    user: 'client ci-operator',
    role: 'operator',
    signOut: false,
  });
  const queue = unique('machine');
  const patched = await fetch(`${BASE}/api/queues/${queue}`, {
    method: 'PATCH',
    headers: { ...bearer(op), 'content-type': 'application/json' },
    body: JSON.stringify({ concurrencyLimit: 2 }),
  });
  expect(patched.status).toBe(200);
  expect((await auditOf(op, queue))[0]).toMatchObject({
    actor: 'client ci-operator (sub ci-operator)',
    source: 'api',
    action: 'queue.update',
  });

  const viewer = await world.idp.machineToken('ci-viewer', API_AUDIENCE);
  expect((await fetch(`${BASE}/api/stats`, { headers: bearer(viewer) })).status).toBe(200);
  const refused = await fetch(`${BASE}/api/queues/${queue}`, {
    method: 'PATCH',
    headers: { ...bearer(viewer), 'content-type': 'application/json' },
    body: JSON.stringify({ concurrencyLimit: 3 }),
  });
  expect(refused.status).toBe(403);

  const wrongAudience = await world.idp.machineToken('ci-operator', OTHER_AUDIENCE);
  const foreignIssuer = await world.otherIdp.machineToken('ci-operator', API_AUDIENCE);
  // forged: the claims of a good token, re-signed with nothing (alg none) or with HS256 keyed by the provider's public key
  const [, payload] = op.split('.');
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
  const jwks = (await (await fetch(`${world.idp.issuer}/jwks`)).json()) as { keys: { kid: string; n: string }[] };
  const hsHeader = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: jwks.keys[0]!.kid })).toString('base64url');
  const hsSignature = createHmac('sha256', JSON.stringify(jwks.keys[0])).update(`${hsHeader}.${payload}`).digest('base64url');
  const hs = `${hsHeader}.${payload}.${hsSignature}`;
  for (const [what, token] of [
    ['wrong audience', wrongAudience],
    ['another issuer', foreignIssuer],
    ['alg none', none],
    ['HS256 with the public key', hs],
    ['garbage', 'not-a-token'],
  ] as const) {
    const res = await fetch(`${BASE}/api/stats`, { headers: bearer(token), redirect: 'manual' });
    expect(res.status, what).toBe(401);
    expect(res.headers.get('content-type'), what).toContain('application/json');
  }
  expect((await fetch(`${BASE}/api/stats`, { headers: bearer(op) })).status).toBe(200);
});

test('an operator signs in: the header says who, the controls are there, a retry is audited under their name', async ({ browser }) => {
  const op = await world.idp.machineToken('ci-operator', API_AUDIENCE);
  const token = await deadTask(op);
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, 'alice', world.idp.issuer, `/tasks/${token}`);
  await expect(page.getByTestId('account-user')).toHaveText('alice@example.test');
  await expect(page.getByTestId('account-role')).toHaveText('operator');
  await expect(page.getByTestId('sign-out')).toBeVisible();
  await page.getByTestId('task-retry').click();
  await expect.poll(async () => (await auditOf(op, token)).map((a) => a.action), { timeout: 15_000 }).toContain('task.retry');
  const retry = (await auditOf(op, token)).find((a) => a.action === 'task.retry')!;
  expect(retry).toMatchObject({ actor: 'alice@example.test (sub alice)', source: 'ui' });
  await page.goto(`${BASE}/audit?target=${token}`);
  await expect(page.getByTestId('audit-actor').first()).toHaveText('alice@example.test (sub alice)');
  await page.screenshot({ path: 'test-results/signon-audit-1280.png' });
  await page.goto(`${BASE}/tasks/${token}`);
  await expect(page.getByTestId('task-status').first()).toBeVisible();
  await expect(page.getByTestId('account-user')).toHaveText('alice@example.test');

  // the session cookie: HttpOnly, SameSite=Lax, not Secure over plain http, ending within READPAST_SESSION_HOURS (8)
  const cookie = (await sessionCookie(ctx))!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
  const hours = (cookie.expires - Date.now() / 1000) / 3600;
  expect(hours).toBeGreaterThan(7.9);
  expect(hours).toBeLessThanOrEqual(8);

  await page.screenshot({ path: 'test-results/signon-header-1280.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('banner').getByTestId('account-initial')).toBeVisible();
  await page.screenshot({ path: 'test-results/signon-header-390.png' });
  await page.getByTestId('nav-menu').click();
  await expect(page.locator('#mobile-nav').getByTestId('account-user')).toHaveText('alice@example.test');
  await expect(page.locator('#mobile-nav').getByTestId('sign-out')).toBeVisible();
  await page.screenshot({ path: 'test-results/signon-menu-390.png' });
  // the top bar still fits the phone's width
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await ctx.close();
});

test('a viewer signs in: no controls, and a mutation with their session is refused 403', async ({ browser }) => {
  const op = await world.idp.machineToken('ci-operator', API_AUDIENCE);
  const token = await deadTask(op);
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, 'victor', world.idp.issuer, `/tasks/${token}`);
  await expect(page.getByTestId('task-status').first()).toBeVisible();
  await expect(page.getByTestId('account-role')).toHaveText('viewer');
  await expect(page.getByTestId('task-retry')).toHaveCount(0);
  const res = await page.request.post(`${BASE}/api/tasks/${token}/retry`, { headers: { origin: BASE } });
  expect(res.status()).toBe(403);
  expect(await res.json()).toMatchObject({ error: expect.stringContaining('may only read') });
  expect((await page.request.get(`${BASE}/api/me`)).ok()).toBe(true);
  expect(await (await page.request.get(`${BASE}/api/me`)).json()).toEqual({ user: 'victor@example.test', role: 'viewer', signOut: true });
  await ctx.close();
});

test('a person in neither group gets the refusal page, every time, and can sign out', async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, 'nora', world.idp.issuer, '/queues');
  await expect(page.getByTestId('signon-heading')).toHaveText('nora@example.test may not use this dashboard');
  await expect(page.getByTestId('signon-reason')).toContainText('none of your groups');
  await expect(page.getByTestId('signon-values')).toContainText('sales');
  const again = await page.request.get(`${BASE}/queues`, { maxRedirects: 0 });
  expect(again.status()).toBe(403);
  const api = await page.request.get(`${BASE}/api/stats`, { maxRedirects: 0 });
  expect(api.status()).toBe(403);
  expect(await api.json()).toMatchObject({ error: expect.stringContaining('none of the groups') });
  await page.reload();
  await expect(page).toHaveURL(`${BASE}/queues`);
  await expect(page.getByTestId('signon-heading')).toBeVisible();
  await page.screenshot({ path: 'test-results/signon-refusal-1280.png' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: 'test-results/signon-refusal-390.png', fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByTestId('signon-action').click();
  await page.getByRole('button', { name: /yes, sign me out/i }).click();
  await expect(page.getByTestId('signon-heading')).toHaveText('You have signed out of readpast');
  expect(await sessionCookie(ctx)).toBeUndefined();
  await ctx.close();
});

test('signing out ends the session here and at the provider', async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, 'alice', world.idp.issuer, '/queues');
  // while the provider's session lasts, a new sign-in needs no login form
  await page.goto(`${BASE}/auth/login?returnTo=/workers`);
  await expect(page).toHaveURL(`${BASE}/workers`);
  await page.getByTestId('sign-out').click();
  // the provider asks to confirm (its end-session endpoint), then comes back
  await expect(page).toHaveURL(new RegExp(`^${world.idp.issuer}/session/end`));
  await page.getByRole('button', { name: /yes, sign me out/i }).click();
  await expect(page).toHaveURL(`${BASE}/auth/signed-out`);
  await expect(page.getByTestId('signon-heading')).toHaveText('You have signed out of readpast');
  expect(await sessionCookie(ctx)).toBeUndefined();
  expect((await page.request.get(`${BASE}/api/stats`)).status()).toBe(401);
  // signed out at the provider too: the dashboard sends the browser to its login form again
  await page.goto(`${BASE}/queues`);
  await expect(page).toHaveURL(new RegExp(`^${world.idp.issuer}/interaction/`));
  await expect(page.locator('input[name="login"]')).toBeVisible();
  await ctx.close();
});

/** Sign in as alice, noting the callback's URL (code, state) and the sign-in cookie the browser held for it. */
async function recordedSignIn(page: Page, ctx: BrowserContext) {
  await blockFonts(page);
  let callback = '';
  page.on('request', (r) => {
    if (r.url().startsWith(`${BASE}/auth/callback?`)) callback = r.url();
  });
  await page.goto(`${BASE}/queues`);
  const signInCookie = (await ctx.cookies(BASE)).find((c) => c.name.startsWith('readpast_signin_'))!;
  expect(signInCookie).toBeDefined();
  await providerLogin(page, 'alice', world.idp.issuer);
  await expect(page).toHaveURL(`${BASE}/queues`);
  expect(await sessionCookie(ctx)).toBeDefined();
  // the sign-in cookie is spent by the callback
  expect((await ctx.cookies(BASE)).some((c) => c.name === signInCookie.name)).toBe(false);
  expect(callback).not.toBe('');
  return { url: new URL(callback), signInCookie };
}

test('the callback refuses a tampered state, a replayed code and a code from another issuer', async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const { url, signInCookie } = await recordedSignIn(page, ctx);
  expect(url.searchParams.get('iss')).toBe(world.idp.issuer);
  // leave the dashboard first: an open page whose session is gone signs in again by itself
  await page.goto('about:blank');
  await ctx.clearCookies();

  // tampered state, with the browser's sign-in cookie for the genuine one: refused
  const tampered = new URL(url);
  tampered.searchParams.set('state', `${url.searchParams.get('state')!.slice(0, -4)}AAAA`);
  await ctx.addCookies([signInCookie]);
  await page.goto(tampered.href);
  await expect(page.getByTestId('signon-heading')).toHaveText('Sign-in failed');
  await expect(page.getByTestId('signon-reason')).toContainText('not started in this browser');
  expect(await sessionCookie(ctx)).toBeUndefined();

  // replayed: without its sign-in cookie (spent) it is unknown…
  await ctx.clearCookies();
  await page.goto(url.href);
  await expect(page.getByTestId('signon-reason')).toContainText('not started in this browser');
  // …and with the cookie put back, the provider refuses the used code
  await ctx.addCookies([signInCookie]);
  await page.goto(url.href);
  await expect(page.getByTestId('signon-heading')).toHaveText('Sign-in failed');
  await expect(page.getByTestId('signon-reason')).toContainText('invalid_grant');
  expect(await sessionCookie(ctx)).toBeUndefined();

  // another issuer: this browser's own sign-in request, answered by the other provider (a mix-up)
  const started = await fetch(`${BASE}/auth/login?returnTo=/queues`, { redirect: 'manual' });
  const toOther = new URL(started.headers.get('location')!.replace(world.idp.issuer, world.otherIdp.issuer));
  const cookie = started.headers.get('set-cookie')!.split(';')[0]!;
  const eq = cookie.indexOf('=');
  await ctx.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url: BASE, httpOnly: true, sameSite: 'Lax' }]);
  await page.goto(toOther.href);
  await providerLogin(page, 'alice', world.otherIdp.issuer);
  await expect(page.getByTestId('signon-heading')).toHaveText('Sign-in failed');
  await expect(page.getByTestId('signon-reason')).toContainText(/iss/i);
  expect(await sessionCookie(ctx)).toBeUndefined();
  await ctx.close();
});

test('an expired or tampered session is no session; the return path stays on this dashboard', async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, 'alice', world.idp.issuer, '/queues');
  const good = (await sessionCookie(ctx))!;
  expect((await page.request.get(`${BASE}/api/stats`)).status()).toBe(200);

  const expired = await sealSession({ name: 'alice@example.test', sub: 'alice', role: 'operator' }, SESSION_SECRET, -60);
  const i = Math.floor(good.value.length / 2);
  const tampered = good.value.slice(0, i) + (good.value[i] === 'A' ? 'B' : 'A') + good.value.slice(i + 1);
  // asked from here, not from the open page's context (the page signs in again by itself, below)
  const withCookie = (value: string) => ({ headers: { cookie: `readpast_session=${value}` }, redirect: 'manual' as const });
  expect((await fetch(`${BASE}/api/stats`, withCookie(good.value))).status).toBe(200);
  for (const [what, value] of [
    ['expired', expired],
    ['tampered', tampered],
  ] as const) {
    const api = await fetch(`${BASE}/api/stats`, withCookie(value));
    expect(api.status, what).toBe(401);
    const pageRes = await fetch(`${BASE}/queues`, withCookie(value));
    expect(pageRes.status, what).toBe(302);
    expect(pageRes.headers.get('location'), what).toMatch(new RegExp(`^${world.idp.issuer}/auth\\?`));
  }
  // a page open when its session ends signs in again by itself (the provider's session still lasts)
  await ctx.addCookies([{ ...good, value: expired }]);
  await expect.poll(async () => (await sessionCookie(ctx))?.value, { timeout: 30_000 }).not.toBe(expired);
  await expect(page).toHaveURL(`${BASE}/queues`);
  await expect(page.getByRole('heading', { level: 1, name: 'Queues' })).toBeVisible();
  await expect(page.getByTestId('live-indicator').first()).toContainText('live');
  expect((await page.request.get(`${BASE}/api/stats`)).status()).toBe(200);
  await page.goto('about:blank');

  // only same-origin paths are returned to
  for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/..//evil.example']) {
    await page.goto(`${BASE}/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
    await expect(page, returnTo).toHaveURL(`${BASE}/`);
  }
  await page.goto(`${BASE}/auth/login?returnTo=${encodeURIComponent('/tasks?status=dead')}`);
  await expect(page).toHaveURL(`${BASE}/tasks?status=dead`);
  await ctx.close();
});
