import { EncryptJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  cookieHeader,
  MAX_SESSION_COOKIE,
  openSession,
  openSignIn,
  readCookie,
  safeReturnTo,
  sealSession,
  sealSignIn,
  signInCookieName,
  signInCookieNames,
} from './session';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const alice = { name: 'alice@example.com', sub: 'sub-1', role: 'operator' as const };

/** the same value with one character of its ciphertext changed */
function tamper(value: string): string {
  const parts = value.split('.');
  const ct = parts[3]!;
  const i = Math.floor(ct.length / 2);
  parts[3] = ct.slice(0, i) + (ct[i] === 'A' ? 'B' : 'A') + ct.slice(i + 1);
  return parts.join('.');
}

describe('the session cookie', () => {
  it('opens what it sealed, with its end', async () => {
    const v = await sealSession({ ...alice, idToken: 'a.b.c' }, SECRET, 3600);
    const s = await openSession(v, SECRET);
    expect(s).toMatchObject({ ...alice, idToken: 'a.b.c' });
    expect(s!.exp - Date.now() / 1000).toBeGreaterThan(3500);
    expect(s!.exp - Date.now() / 1000).toBeLessThanOrEqual(3600);
    // the content is encrypted, not merely signed
    expect(Buffer.from(v.split('.')[3]!, 'base64url').toString()).not.toContain('alice');
  });

  it('refuses a tampered, expired, foreign or mislabelled cookie', async () => {
    const v = await sealSession(alice, SECRET, 3600);
    expect(await openSession(tamper(v), SECRET)).toBeNull();
    expect(await openSession(v, `${SECRET}-other`)).toBeNull();
    expect(await openSession(await sealSession(alice, SECRET, -120), SECRET)).toBeNull();
    expect(await openSession('', SECRET)).toBeNull();
    expect(await openSession('not.a.jwe', SECRET)).toBeNull();
    // a sign-in cookie is not a session (another key), nor is a session a sign-in
    const signIn = await sealSignIn({ state: 's'.repeat(43), nonce: 'n', verifier: 'v', returnTo: '/' }, SECRET);
    expect(await openSession(signIn, SECRET)).toBeNull();
    expect(await openSignIn(v, SECRET)).toBeNull();
  });

  it('refuses a session sealed without an expiry, even with the right key', async () => {
    const { hkdfSync } = await import('node:crypto');
    const key = new Uint8Array(hkdfSync('sha256', SECRET, 'readpast', 'readpast session cookie v1', 32));
    const forever = await new EncryptJWT({ ...alice })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'session' })
      .setIssuedAt()
      .encrypt(key);
    expect(await openSession(forever, SECRET)).toBeNull();
    const bounded = await new EncryptJWT({ ...alice })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'session' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .encrypt(key);
    expect(await openSession(bounded, SECRET)).toMatchObject(alice);
  });

  it('is HttpOnly, SameSite=Lax, Secure over https, with a bounded Max-Age', () => {
    expect(cookieHeader('readpast_session', 'v', 3600, { secure: false })).toBe(
      'readpast_session=v; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax',
    );
    expect(cookieHeader('readpast_session', 'v', 60, { secure: true })).toMatch(/; Secure$/);
    expect(readCookie('a=1; readpast_session=xyz; b=2', 'readpast_session')).toBe('xyz');
    expect(readCookie('a=1', 'readpast_session')).toBeNull();
    expect(signInCookieNames('readpast_signin_abc=1; x=2; readpast_signin_def=3')).toEqual(['readpast_signin_abc', 'readpast_signin_def']);
  });
});

describe('the session cookie’s size', () => {
  it('stays within what browsers keep, leaving out the ID token, then values', async () => {
    const big = { ...alice, role: null, values: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(80, 'g')), idToken: 'x'.repeat(2500) };
    const v = await sealSession(big, SECRET, 600);
    expect('readpast_session='.length + v.length).toBeLessThanOrEqual(MAX_SESSION_COOKIE);
    const s = (await openSession(v, SECRET))!;
    expect(s.idToken).toBeUndefined();
    expect(s.values!.length).toBeGreaterThan(0);
    expect(s.values!.length).toBeLessThanOrEqual(20);
    // what fits is kept whole
    const small = (await openSession(await sealSession({ ...alice, idToken: 'y'.repeat(1500) }, SECRET, 600), SECRET))!;
    expect(small.idToken).toHaveLength(1500);
    const long = (await openSession(await sealSession({ ...alice, name: 'n'.repeat(5000), sub: 's'.repeat(5000) }, SECRET, 600), SECRET))!;
    expect(long.name).toHaveLength(200);
  });
});

describe('the sign-in cookie', () => {
  it('keeps state, nonce, verifier and where to return; is named by its state', async () => {
    const t = { state: 'A'.repeat(43), nonce: 'n', verifier: 'v', returnTo: '/tasks?x=1' };
    expect(await openSignIn(await sealSignIn(t, SECRET), SECRET)).toEqual(t);
    expect(signInCookieName(t.state)).toBe(`readpast_signin_${'A'.repeat(24)}`);
    for (const bad of ['', 'short', 'has space and more', `${'x'.repeat(20)};x=1`]) expect(signInCookieName(bad)).toBeNull();
  });
});

describe('where to return after signing in', () => {
  it('keeps paths on this dashboard', () => {
    for (const ok of ['/', '/tasks', '/tasks?status=dead&q=a%20b', '/tasks/abc#attempts']) expect(safeReturnTo(ok)).toBe(ok);
    expect(safeReturnTo('/a/../b')).toBe('/b');
  });

  it('turns anything a browser could take for another site into /', () => {
    for (const bad of [
      'https://evil.example/',
      '//evil.example',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/..//evil.example',
      '/%0d%0aSet-Cookie:x',
      '/\t/evil.example',
      'javascript:alert(1)',
      'tasks',
      '',
      null,
      undefined,
      `/${'x'.repeat(3000)}`,
    ]) {
      const r = safeReturnTo(bad);
      // a path of this origin, with nothing a header or a browser would read otherwise
      expect(r.startsWith('/') && !r.startsWith('//') && !/[\s\\]/.test(r), String(bad)).toBe(true);
      expect(new URL(r, 'https://dash.example').origin, String(bad)).toBe('https://dash.example');
    }
    expect(safeReturnTo('//evil.example')).toBe('/');
    expect(safeReturnTo('/..//evil.example')).toBe('/');
    expect(safeReturnTo('https://evil.example/')).toBe('/');
    expect(safeReturnTo('/\\evil.example')).toBe('/');
  });
});
