// The access rule for every page, server action and API route, in one place:
// - READPAST_AUTH set: Basic credentials (pages, actions, API) or a bearer token (API) are accepted;
// - READPAST_OIDC_ISSUER set: a sign-on session (cookie) is accepted, and on the API an access token of
//   the provider whose audience is READPAST_OIDC_AUDIENCE; a page without a session is sent to sign in
//   (proxy.ts), the API answers 401 JSON; a person in neither group is refused (403, with the reason);
// - neither (only possible on loopback): requests must be addressed to a loopback host name;
// - always: a browser's cross-site write (Origin of another site) is refused, and a viewer's write too.
import { loopbackHostHeader, sameOrigin } from './auth';
import { hasCredentials, type ServerConfig } from './config';
import { identify, type Identity } from './identity';
import { verifyAccessToken } from './oidc';
import { openSession, readCookie, SESSION_COOKIE, type Session } from './session';

export interface RequestFacts {
  method: string;
  /** API routes also accept `Authorization: Bearer <password>` (and the provider's access tokens) */
  api: boolean;
  authorization: string | null;
  host: string | null;
  origin: string | null;
  /** the Cookie header (the sign-on session) */
  cookie?: string | null;
}

export type Refusal = { status: 401 | 403; error: string; challenge: boolean; signIn?: boolean; session?: Session };

export type Verdict = ({ ok: true; identity: Identity } & { session?: Session }) | ({ ok: false } & Refusal);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type GuardConfig = Pick<ServerConfig, 'auth'> & Partial<Pick<ServerConfig, 'viewers' | 'oidc'>>;

/** Who a request is, by any configured means, or null; and the session it carries, if any (valid or not for a role). */
export async function requestIdentity(req: RequestFacts, config: GuardConfig): Promise<{ identity: Identity | null; session?: Session }> {
  if (!hasCredentials(config)) return { identity: { user: 'loopback', role: 'operator', via: 'loopback' } };
  const byPassword = identify(
    req.authorization,
    { auth: config.auth, viewers: config.viewers ?? [] },
    req.api ? ['basic', 'bearer'] : ['basic'],
  );
  if (byPassword) return { identity: byPassword };
  const oidc = config.oidc;
  if (!oidc) return { identity: null };
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.authorization ?? '');
  if (bearer && req.api) return { identity: await verifyAccessToken(oidc, bearer[1]!) };
  const session = await openSession(readCookie(req.cookie, SESSION_COOKIE), oidc.sessionSecret);
  if (!session) return { identity: null };
  return { identity: { user: session.name, subject: session.sub, role: session.role, via: 'session' }, session };
}

export async function checkRequest(req: RequestFacts, config: GuardConfig): Promise<Verdict> {
  const { identity, session } = await requestIdentity(req, config);
  if (!identity) {
    // with sign-on a browser is sent to the provider (pages) rather than asked for a password
    const signIn = !!config.oidc;
    return { ok: false, status: 401, error: 'authentication required', challenge: !!config.auth && !signIn, signIn };
  }
  if (!hasCredentials(config) && !loopbackHostHeader(req.host)) {
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
  if (identity.role === null) {
    return {
      ok: false,
      status: 403,
      error: `${identity.user} is signed in but in none of the groups allowed here (READPAST_OIDC_OPERATORS, READPAST_OIDC_VIEWERS)`,
      challenge: false,
      session,
    };
  }
  if (identity.role === 'viewer' && !SAFE_METHODS.has(req.method.toUpperCase())) {
    return { ok: false, status: 403, error: `${identity.user} may only read (a viewer): changes need the operator`, challenge: false };
  }
  return session ? { ok: true, identity, session } : { ok: true, identity };
}
