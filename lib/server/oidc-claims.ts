// What the provider's claims say about someone: their name for the audit log, and their role from the roles
// claim (READPAST_OIDC_ROLES_CLAIM: `groups`, `roles`, or a dotted path such as Keycloak's
// `realm_access.roles`) matched against READPAST_OIDC_OPERATORS / READPAST_OIDC_VIEWERS. Pure.
import type { OidcConfig } from './config-oidc';
import type { Role } from './identity';

type Claims = Record<string, unknown>;

/** The value at a dotted path of the claims (`realm_access.roles`), or at the name itself when the claim has dots in it. */
function claimAt(claims: Claims, path: string): unknown {
  if (path in claims) return claims[path];
  let v: unknown = claims;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = (v as Claims)[part];
  }
  return v;
}

/** Whether the claims hold the roles claim at all (when the ID token lacks it, the userinfo endpoint is asked). */
export function hasRolesClaim(claims: Claims, cfg: Pick<OidcConfig, 'rolesClaim'>): boolean {
  return claimAt(claims, cfg.rolesClaim) !== undefined;
}

/** The roles claim's values: an array of strings, or one string (Google: `email` or `hd` as the claim), or a space-separated list. */
export function roleValues(claims: Claims, cfg: Pick<OidcConfig, 'rolesClaim'>): string[] {
  const v = claimAt(claims, cfg.rolesClaim);
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  return [];
}

/** Operator if any value is an operator's, else viewer if any is a viewer's, else null (refused). */
export function roleOf(values: readonly string[], cfg: Pick<OidcConfig, 'operators' | 'viewers'>): Role | null {
  if (values.some((v) => cfg.operators.includes(v))) return 'operator';
  if (values.some((v) => cfg.viewers.includes(v))) return 'viewer';
  return null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** A person's name for the header and the audit log: email, else preferred_username, else name, else the subject. */
export function personName(claims: Claims): string {
  return text(claims.email) ?? text(claims.preferred_username) ?? text(claims.name) ?? String(claims.sub);
}

/** A machine client's name (client credentials): its client id as the provider states it, else the subject. */
export function clientName(claims: Claims): string {
  const id = text(claims.client_id) ?? text(claims.azp) ?? text(claims.appid);
  return id ? `client ${id}` : String(claims.sub);
}

/** At most this many of a refused person's claim values are kept (in the session cookie) and shown. */
export const SHOWN_VALUES = 20;

/** A refused person's values as the refusal page lists them (bounded in number and length). */
export function shownValues(values: readonly string[]): string[] {
  return values.slice(0, SHOWN_VALUES).map((v) => (v.length > 80 ? `${v.slice(0, 79)}…` : v));
}
