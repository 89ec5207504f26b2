// Who is asking, and what they may do: `READPAST_AUTH` is the operator (every page, action and route);
// each of `READPAST_VIEWERS` may read (pages and GET routes) and is refused every mutation with 403.
// Without credentials configured (loopback only) the caller is the operator `loopback`. With sign-on
// (READPAST_OIDC_*) a person or a machine client is an operator or a viewer by the provider's claim
// (lib/server/oidc-claims.ts), or neither (role null: refused, with the reason).
import { authorized, type AuthScheme } from './auth';
import type { ServerConfig } from './config';

export type Role = 'operator' | 'viewer';

export interface Identity {
  /** the name shown and recorded: a user name, `bearer`, `loopback`, a person's email or user name, a client id */
  user: string;
  /** null: signed in with the provider, but in none of the configured groups */
  role: Role | null;
  /** the provider's subject (`sub`) of a person or machine signed in with the provider */
  subject?: string;
  /** how: a configured password (Basic or bearer), a sign-on session, a provider's access token, nothing (loopback) */
  via: 'password' | 'session' | 'token' | 'loopback';
}

/** The audit log's `actor` of an identity: a provider's user with their subject, `alice@example.com (sub 2482…)`. */
export function actorName(id: Pick<Identity, 'user' | 'subject'>): string {
  if (!id.subject) return id.user;
  // the audit column holds 200 characters (SQL Server nvarchar(200))
  const sub = id.subject.slice(0, 100);
  return `${id.user.slice(0, 190 - sub.length)} (sub ${sub})`;
}

/**
 * The identity an Authorization header proves with a configured password, or null. Every configured
 * credential is compared (in constant time), whichever matches, so timing does not tell operators from
 * viewers. A bearer token is a password: the operator's or a viewer's (that viewer's name is the actor).
 */
export function identify(
  header: string | null | undefined,
  config: Pick<ServerConfig, 'auth' | 'viewers'>,
  schemes: readonly AuthScheme[],
): Identity | null {
  if (!config.auth) return null;
  const bearer = /^bearer\s/i.test(header ?? '');
  let found: Identity | null = null;
  if (authorized(header, config.auth, schemes)) found = { user: bearer ? 'bearer' : config.auth.user, role: 'operator', via: 'password' };
  for (const v of config.viewers) {
    const ok = authorized(header, v, schemes);
    if (ok && !found) found = { user: v.user, role: 'viewer', via: 'password' };
  }
  return found;
}
