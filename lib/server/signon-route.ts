// The /auth/* route handlers' plumbing: 404 without sign-on configured, the provider unreachable as a 503 page.
import { serverConfig } from './config';
import type { OidcConfig } from './config-oidc';
import { SignInError } from './oidc';
import { messagePage, unavailablePage } from './pages';

export function signOnRoute(fn: (req: Request, cfg: OidcConfig) => Response | Promise<Response>): (req: Request) => Promise<Response> {
  return async (req: Request) => {
    const cfg = serverConfig().oidc;
    if (!cfg) return messagePage('Not found', 'Sign-on is not configured', 'READPAST_OIDC_ISSUER is not set.', null, 404);
    try {
      return await fn(req, cfg);
    } catch (err) {
      if (err instanceof SignInError) return unavailablePage(err.message);
      throw err;
    }
  };
}
