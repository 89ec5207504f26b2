// Who may use the dashboard: HTTP Basic (pages and API) or `Authorization: Bearer <password>` (API),
// compared in constant time; and, when no credentials are configured, requests addressed to loopback only.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost, type Credentials } from './config';

export const REALM = 'readpast';

/** Equal-length digests, so neither the content nor the length of the secret leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export type AuthScheme = 'basic' | 'bearer';

/** Whether an Authorization header carries the configured credentials. */
export function authorized(header: string | null | undefined, creds: Credentials, schemes: readonly AuthScheme[]): boolean {
  if (!header) return false;
  const m = /^(\S+)\s+(\S+)\s*$/.exec(header);
  if (!m) return false;
  const scheme = m[1]!.toLowerCase();
  const value = m[2]!;
  if (scheme === 'basic' && schemes.includes('basic')) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) return false;
    // evaluate both comparisons, always
    const userOk = sameSecret(decoded.slice(0, i), creds.user);
    const passOk = sameSecret(decoded.slice(i + 1), creds.password);
    return userOk && passOk;
  }
  if (scheme === 'bearer' && schemes.includes('bearer')) return sameSecret(value, creds.password);
  return false;
}

/**
 * Without credentials the server is open, so it must only answer requests addressed to loopback:
 * a page on another site that resolves its own name to 127.0.0.1 (DNS rebinding) sends its own Host.
 */
export function loopbackHostHeader(hostHeader: string | null | undefined): boolean {
  if (!hostHeader) return false;
  const h = hostHeader.trim();
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d+$/, '');
  return isLoopbackHost(name);
}

/** A browser-sent Origin must be this server (cross-site form posts and fetches are refused). */
export function sameOrigin(originHeader: string | null | undefined, hostHeader: string | null | undefined): boolean {
  if (!originHeader) return true; // not a browser, or a same-origin navigation
  if (originHeader === 'null' || !hostHeader) return false;
  try {
    return new URL(originHeader).host.toLowerCase() === hostHeader.trim().toLowerCase();
  } catch {
    return false;
  }
}
