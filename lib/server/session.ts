// The cookies of sign-on, sealed (JWE, dir + A256GCM) with keys derived from READPAST_SESSION_SECRET:
// - the session (`readpast_session`): who signed in, their role, until when; HttpOnly, SameSite=Lax,
//   Secure over https, a bounded lifetime (READPAST_SESSION_HOURS);
// - one short-lived cookie per sign-in under way (`readpast_signin_<state>`): state, nonce, PKCE verifier
//   and where to return, kept by the browser between the redirect to the provider and the callback.
// Each kind has its own key (HKDF info), so one cannot be passed off as the other; a cookie that does not
// decrypt, has expired or was sealed for something else is no cookie at all.
import { hkdfSync } from 'node:crypto';
import { EncryptJWT, jwtDecrypt, type JWTPayload } from 'jose';
import type { Role } from './identity';

export const SESSION_COOKIE = 'readpast_session';
const SIGNIN_PREFIX = 'readpast_signin_';
/** how long a sign-in may take at the provider (login form, MFA) before it has to start again */
export const SIGNIN_SECONDS = 10 * 60;

type Purpose = 'session' | 'signin';

const keys = new Map<string, Uint8Array>();

function keyFor(secret: string, purpose: Purpose): Uint8Array {
  const id = `${purpose}\0${secret}`;
  let k = keys.get(id);
  if (!k) {
    k = new Uint8Array(hkdfSync('sha256', secret, 'readpast', `readpast ${purpose} cookie v1`, 32));
    keys.set(id, k);
  }
  return k;
}

async function seal(payload: JWTPayload, secret: string, purpose: Purpose, seconds: number): Promise<string> {
  return new EncryptJWT(payload)
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: purpose })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
    .encrypt(keyFor(secret, purpose));
}

async function open(value: string | undefined | null, secret: string, purpose: Purpose): Promise<JWTPayload | null> {
  if (!value) return null;
  try {
    const { payload, protectedHeader } = await jwtDecrypt(value, keyFor(secret, purpose), {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      requiredClaims: ['exp', 'iat'],
    });
    return protectedHeader.typ === purpose ? payload : null;
  } catch {
    return null;
  }
}

/** What a session says: who (display name and subject), their role (null: in neither group), until when. */
export interface Session {
  /** email, else preferred_username, else name, else the subject */
  name: string;
  sub: string;
  role: Role | null;
  /** the roles claim's values, kept only when they made no role (the refusal page shows them) */
  values?: string[];
  /** the ID token, for the provider's sign-out (id_token_hint), when it is small enough for a cookie */
  idToken?: string;
  /** end of the session, epoch seconds */
  exp: number;
}

/** A cookie's name and value must stay within 4096 bytes in browsers: a larger one is dropped, silently. */
export const MAX_SESSION_COOKIE = 3800;

/**
 * The session cookie's value, within MAX_SESSION_COOKIE: what does not fit is left out, least needed first
 * (the ID token, which only makes the provider's sign-out skip a question; then the refused person's values).
 * A dropped cookie would send the browser back to the provider on every page: a loop.
 */
export async function sealSession(s: Omit<Session, 'exp'>, secret: string, seconds: number): Promise<string> {
  let idToken = s.idToken;
  let values = s.values;
  for (;;) {
    const payload: JWTPayload = { name: s.name.slice(0, 200), sub: s.sub.slice(0, 255), role: s.role };
    if (values) payload.values = values;
    if (idToken) payload.idt = idToken;
    const sealed = await seal(payload, secret, 'session', seconds);
    if (SESSION_COOKIE.length + 1 + sealed.length <= MAX_SESSION_COOKIE) return sealed;
    if (idToken) idToken = undefined;
    else if (values?.length) values = values.slice(0, Math.floor(values.length / 2));
    else return sealed; // name and subject are bounded: this fits
  }
}

export async function openSession(value: string | undefined | null, secret: string): Promise<Session | null> {
  const p = await open(value, secret, 'session');
  if (!p || typeof p.sub !== 'string' || typeof p.name !== 'string') return null;
  const role = p.role === 'operator' || p.role === 'viewer' ? p.role : null;
  const s: Session = { name: p.name, sub: p.sub, role, exp: p.exp! };
  if (Array.isArray(p.values)) s.values = p.values.filter((v): v is string => typeof v === 'string');
  if (typeof p.idt === 'string') s.idToken = p.idt;
  return s;
}

/** A sign-in under way: the values the callback must see again. */
export interface SignIn {
  state: string;
  nonce: string;
  verifier: string;
  /** a path on this dashboard (checked by safeReturnTo) */
  returnTo: string;
}

/** The cookie of the sign-in with this `state`: one per sign-in, so two tabs signing in at once do not undo each other. */
export function signInCookieName(state: string): string | null {
  return /^[A-Za-z0-9_-]{16,128}$/.test(state) ? SIGNIN_PREFIX + state.slice(0, 24) : null;
}

export async function sealSignIn(t: SignIn, secret: string): Promise<string> {
  return seal({ ...t }, secret, 'signin', SIGNIN_SECONDS);
}

export async function openSignIn(value: string | undefined | null, secret: string): Promise<SignIn | null> {
  const p = await open(value, secret, 'signin');
  if (!p) return null;
  const { state, nonce, verifier, returnTo } = p;
  if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string' || typeof returnTo !== 'string') return null;
  return { state, nonce, verifier, returnTo: safeReturnTo(returnTo) };
}

/**
 * Where to go after signing in: a path on this dashboard only. Anything that a browser could read as
 * another site (`//evil.example`, `/\evil.example`, `https://…`, control characters) becomes `/`.
 */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value || value.length > 2000) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return '/';
  try {
    const u = new URL(value, 'http://readpast.invalid');
    const path = u.pathname + u.search + u.hash;
    // `/..//evil.example` normalises to `//evil.example`
    return u.origin === 'http://readpast.invalid' && !path.startsWith('//') ? path : '/';
  } catch {
    return '/';
  }
}

export interface CookieOptions {
  secure: boolean;
}

/** A Set-Cookie header value. */
export function cookieHeader(name: string, value: string, maxAge: number, opts: CookieOptions): string {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax'];
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

export const clearCookie = (name: string, opts: CookieOptions) => cookieHeader(name, '', 0, opts);

/** The value of one cookie in a Cookie header. */
export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

/** The names of the sign-in cookies a request carries (cleared once a sign-in completes). */
export function signInCookieNames(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(';')
    .map((p) => p.slice(0, Math.max(0, p.indexOf('='))).trim())
    .filter((n) => n.startsWith(SIGNIN_PREFIX));
}
