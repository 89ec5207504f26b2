// The HTTP side of sign-on: the redirect to the provider (pages without a session, /auth/login), the callback
// (/auth/callback: the session cookie set, back to where the person was going), sign-out (/auth/logout: the
// session cookie cleared, then the provider's end-session endpoint when it has one).
import { sameOrigin } from './auth';
import type { OidcConfig } from './config-oidc';
import { beginSignIn, completeSignIn, endSessionUrl, SignInError } from './oidc';
import { messagePage, signInFailedPage } from './pages';
import {
  clearCookie,
  cookieHeader,
  openSession,
  openSignIn,
  readCookie,
  safeReturnTo,
  sealSession,
  sealSignIn,
  SESSION_COOKIE,
  SIGNIN_SECONDS,
  signInCookieName,
} from './session';

export const CALLBACK_PATH = '/auth/callback';
export const SIGNED_OUT_PATH = '/auth/signed-out';

/**
 * The dashboard's origin as browsers reach it: READPAST_PUBLIC_URL, else the request's Host with the scheme a
 * TLS-terminating proxy reports (X-Forwarded-Proto), else the request's own.
 */
export function publicOrigin(req: Request, cfg: Pick<OidcConfig, 'publicUrl'>): string {
  if (cfg.publicUrl) return cfg.publicUrl;
  const url = new URL(req.url);
  const forwarded = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : url.protocol.slice(0, -1);
  return `${scheme}://${req.headers.get('host') ?? url.host}`;
}

const cookieOptions = (origin: string) => ({ secure: origin.startsWith('https:') });

function redirect(location: string, status: 302 | 303, cookies: string[] = []): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const c of cookies) headers.append('set-cookie', c);
  return new Response(null, { status, headers });
}

/** To the provider's authorization endpoint, with a sign-in cookie holding state, nonce and PKCE verifier. */
export async function redirectToSignIn(req: Request, cfg: OidcConfig, returnTo: string): Promise<Response> {
  const origin = publicOrigin(req, cfg);
  const { url, signIn } = await beginSignIn(cfg, origin + CALLBACK_PATH, safeReturnTo(returnTo));
  const name = signInCookieName(signIn.state)!;
  return redirect(url.href, 302, [cookieHeader(name, await sealSignIn(signIn, cfg.sessionSecret), SIGNIN_SECONDS, cookieOptions(origin))]);
}

/** GET /auth/callback: the provider's answer. Its sign-in cookie is spent whatever happens (a code is good once). */
export async function handleCallback(req: Request, cfg: OidcConfig): Promise<Response> {
  const origin = publicOrigin(req, cfg);
  const opts = cookieOptions(origin);
  const query = new URL(req.url).searchParams;
  const state = query.get('state') ?? '';
  const name = signInCookieName(state);
  const spent = name ? [clearCookie(name, opts)] : [];
  const providerError = query.get('error');
  if (providerError) {
    const desc = query.get('error_description');
    return signInFailedPage(`the provider answered ${providerError}${desc ? `: ${desc}` : ''}`, spent);
  }
  const signIn = name ? await openSignIn(readCookie(req.headers.get('cookie'), name), cfg.sessionSecret) : null;
  if (!signIn || signIn.state !== state) {
    return signInFailedPage(
      'this sign-in was not started in this browser, took longer than 10 minutes, or was already completed (its state is unknown here)',
      spent,
    );
  }
  try {
    const session = await completeSignIn(cfg, origin + CALLBACK_PATH, query, signIn);
    const cookie = cookieHeader(
      SESSION_COOKIE,
      await sealSession(session, cfg.sessionSecret, cfg.sessionSeconds),
      cfg.sessionSeconds,
      opts,
    );
    return redirect(signIn.returnTo, 302, [...spent, cookie]);
  } catch (err) {
    if (err instanceof SignInError) return signInFailedPage(err.message, spent);
    throw err;
  }
}

/** GET /auth/login?returnTo=/path: start a sign-in (the refusal and signed-out pages link here). */
export async function handleLogin(req: Request, cfg: OidcConfig): Promise<Response> {
  return redirectToSignIn(req, cfg, new URL(req.url).searchParams.get('returnTo') ?? '/');
}

/**
 * POST /auth/logout (a form of this dashboard; another site's is refused): the session cookie cleared, then
 * the provider's end-session endpoint (it comes back to /auth/signed-out), or /auth/signed-out directly.
 * GET shows the form.
 */
export async function handleLogout(req: Request, cfg: OidcConfig): Promise<Response> {
  if (req.method !== 'POST') {
    return messagePage('Sign out', 'Sign out of readpast?', '', { action: '/auth/logout', label: 'Sign out' }, 200);
  }
  if (!sameOrigin(req.headers.get('origin'), req.headers.get('host'))) {
    return messagePage('Sign out', 'Sign-out refused', 'The request came from another site.', null, 403);
  }
  const origin = publicOrigin(req, cfg);
  const session = await openSession(readCookie(req.headers.get('cookie'), SESSION_COOKIE), cfg.sessionSecret);
  const cleared = [clearCookie(SESSION_COOKIE, cookieOptions(origin))];
  const endSession = await endSessionUrl(cfg, session?.idToken, origin + SIGNED_OUT_PATH);
  return redirect(endSession?.href ?? SIGNED_OUT_PATH, 303, cleared);
}

/** GET /auth/signed-out: where the provider sends the browser back after signing out. */
export function signedOutPage(): Response {
  return messagePage('Signed out', 'You have signed out of readpast', '', { href: '/auth/login', label: 'Sign in again' }, 200);
}
