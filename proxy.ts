// Access control in front of every page, server action and API route (see lib/server/guard.ts):
// credentials when READPAST_AUTH is set, loopback host names only when it is not, no cross-site writes.
import { NextResponse, type NextRequest } from 'next/server';
import { REALM } from '@/lib/server/auth';
import { serverConfig } from '@/lib/server/config';
import { checkRequest } from '@/lib/server/guard';

export function proxy(req: NextRequest) {
  const api = req.nextUrl.pathname === '/api' || req.nextUrl.pathname.startsWith('/api/');
  let config;
  try {
    config = serverConfig();
  } catch (err) {
    return Response.json({ error: (err as Error).message }, { status: 500 });
  }
  const verdict = checkRequest(
    {
      method: req.method,
      // the Prometheus scrape (/metrics) authenticates like the API: Basic or Bearer
      api: api || req.nextUrl.pathname === '/metrics',
      authorization: req.headers.get('authorization'),
      host: req.headers.get('host'),
      origin: req.headers.get('origin'),
    },
    config,
  );
  if (verdict.ok) return NextResponse.next();
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (verdict.challenge) headers['www-authenticate'] = `Basic realm="${REALM}", charset="UTF-8"`;
  if (api) return Response.json({ error: verdict.error }, { status: verdict.status, headers });
  return new Response(`${verdict.status === 401 ? 'Authentication required' : 'Forbidden'}: ${verdict.error}\n`, {
    status: verdict.status,
    headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
  });
}

export const config = {
  // everything but build artefacts (hashed JS/CSS chunks, which hold no data)
  matcher: ['/((?!_next/static|_next/image).*)'],
};
