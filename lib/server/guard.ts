// The access rule for every page, server action and API route, in one place:
// - READPAST_AUTH set: Basic credentials (pages, actions, API) or a bearer token (API) are required;
// - unset (only possible on loopback): requests must be addressed to a loopback host name;
// - always: a browser's cross-site write (Origin of another site) is refused.
import { loopbackHostHeader, sameOrigin } from './auth';
import type { ServerConfig } from './config';
import { identify, type Identity } from './identity';

export interface RequestFacts {
  method: string;
  /** API routes also accept `Authorization: Bearer <password>` */
  api: boolean;
  authorization: string | null;
  host: string | null;
  origin: string | null;
}

export type Verdict = { ok: true; identity: Identity } | { ok: false; status: 401 | 403; error: string; challenge: boolean };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function checkRequest(req: RequestFacts, config: Pick<ServerConfig, 'auth'> & Partial<Pick<ServerConfig, 'viewers'>>): Verdict {
  const identity = identify(
    req.authorization,
    { auth: config.auth, viewers: config.viewers ?? [] },
    req.api ? ['basic', 'bearer'] : ['basic'],
  );
  if (!identity) return { ok: false, status: 401, error: 'authentication required', challenge: true };
  if (!config.auth && !loopbackHostHeader(req.host)) {
    return {
      ok: false,
      status: 403,
      error: 'this dashboard answers only requests addressed to localhost; set READPAST_AUTH to serve other host names',
      challenge: false,
    };
  }
  if (!SAFE_METHODS.has(req.method.toUpperCase()) && !sameOrigin(req.origin, req.host)) {
    return { ok: false, status: 403, error: 'cross-origin request refused', challenge: false };
  }
  if (identity.role === 'viewer' && !SAFE_METHODS.has(req.method.toUpperCase())) {
    return { ok: false, status: 403, error: `${identity.user} may only read (a viewer): changes need the operator`, challenge: false };
  }
  return { ok: true, identity };
}
