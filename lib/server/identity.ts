// Who is asking, and what they may do: `READPAST_AUTH` is the operator (every page, action and route);
// each of `READPAST_VIEWERS` may read (pages and GET routes) and is refused every mutation with 403.
// Without credentials configured (loopback only) the caller is the operator `loopback`.
import { authorized, type AuthScheme } from './auth';
import type { ServerConfig } from './config';

export type Role = 'operator' | 'viewer';

export interface Identity {
  user: string;
  role: Role;
}

/**
 * The identity an Authorization header proves, or null. Every configured credential is compared (in
 * constant time), whichever matches, so timing does not tell operators from viewers. A bearer token is a
 * password: the operator's or a viewer's (that viewer's name is the actor).
 */
export function identify(
  header: string | null | undefined,
  config: Pick<ServerConfig, 'auth' | 'viewers'>,
  schemes: readonly AuthScheme[],
): Identity | null {
  if (!config.auth) return { user: 'loopback', role: 'operator' };
  const bearer = /^bearer\s/i.test(header ?? '');
  let found: Identity | null = null;
  if (authorized(header, config.auth, schemes)) found = { user: bearer ? 'bearer' : config.auth.user, role: 'operator' };
  for (const v of config.viewers) {
    const ok = authorized(header, v, schemes);
    if (ok && !found) found = { user: v.user, role: 'viewer' };
  }
  return found;
}
