// Access control in front of every page, server action and API route (see lib/server/guard.ts):
// credentials when READPAST_AUTH or sign-on (READPAST_OIDC_*) is configured, loopback host names only when
// neither is, no cross-site writes. With sign-on, a page request without a session goes straight to the
// provider (lib/server/signin.ts), the API answers 401 JSON, a person in neither group gets the refusal page.
import { NextResponse, type NextRequest } from 'next/server';
import { REALM } from '@/lib/server/auth';
import { serverConfig } from '@/lib/server/config';
import { checkRequest } from '@/lib/server/guard';
import { refusalPage, unavailablePage } from '@/lib/server/pages';
import { redirectToSignIn } from '@/lib/server/signin';

/** /auth/callback, /auth/login, /auth/logout, /auth/signed-out: reachable without a session (they check what they need) */
const isSignOnRoute = (path: string) => /^\/auth\/(callback|login|logout|signed-out)\/?$/.test(path);

export async function proxy(req: NextRequest) {
  const path = req.nextUrl.pathname;
  const api = path === '/api' || path.startsWith('/api/');
  let config;
  try {
    config = serverConfig();
  } catch (err) {
    return Response.json({ error: (err as Error).message }, { status: 500 });
  }
  if (config.oidc && isSignOnRoute(path)) return NextResponse.next();
  // the Prometheus scrape (/metrics) authenticates like the API: Basic, bearer, an access token
  const apiLike = api || path === '/metrics';
  const page = !apiLike && (req.method === 'GET' || req.method === 'HEAD') && !req.headers.get('next-action');
  let verdict;
  try {
    verdict = await checkRequest(
      {
        method: req.method,
        api: apiLike,
        authorization: req.headers.get('authorization'),
        host: req.headers.get('host'),
        origin: req.headers.get('origin'),
        cookie: req.headers.get('cookie'),
      },
      config,
    );
    if (!verdict.ok && verdict.signIn && page) return await redirectToSignIn(req, config.oidc!, path + req.nextUrl.search);
  } catch (err) {
    // the sign-on provider cannot be reached (discovery, keys)
    const message = (err as Error).message;
    if (apiLike) return Response.json({ error: message }, { status: 503, headers: { 'cache-control': 'no-store', 'retry-after': '10' } });
    return unavailablePage(message);
  }
  if (verdict.ok) return NextResponse.next();
  if (verdict.session && page) return refusalPage(verdict.session, config.oidc!);
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (verdict.challenge) headers['www-authenticate'] = `Basic realm="${REALM}", charset="UTF-8"`;
  else if (verdict.signIn && apiLike) headers['www-authenticate'] = `Bearer realm="${REALM}"`;
  if (apiLike) {
    // the dashboard's own pages reload to sign in again when their session has ended (components/api.ts)
    const body = verdict.signIn ? { error: verdict.error, signIn: '/auth/login' } : { error: verdict.error };
    return Response.json(body, { status: verdict.status, headers });
  }
  return new Response(`${verdict.status === 401 ? 'Authentication required' : 'Forbidden'}: ${verdict.error}\n`, {
    status: verdict.status,
    headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
  });
}

export const config = {
  // everything but build artefacts (hashed JS/CSS chunks, which hold no data)
  matcher: ['/((?!_next/static|_next/image).*)'],
};
