// Sign-on with an OpenID Connect provider (Entra ID, Okta, Keycloak, Google…): its settings, read from
// READPAST_OIDC_* and READPAST_SESSION_* with the rest of the server's configuration (config.ts).
import { z } from 'zod';
import { ConfigError } from '../engine/errors';
import { isLoopbackHost } from './loopback';

export interface OidcConfig {
  /** the provider's issuer identifier (discovery: <issuer>/.well-known/openid-configuration) */
  issuer: string;
  clientId: string;
  /** null: a public client (PKCE only) */
  clientSecret: string | null;
  /** at least 32 characters; the session and sign-in cookies are encrypted with keys derived from it */
  sessionSecret: string;
  /** how long a session lasts before the person signs in again (the provider may do it without asking) */
  sessionSeconds: number;
  /** the claim roles are read from: `groups` (default), `roles` (Entra app roles), a dotted path (`realm_access.roles`) */
  rolesClaim: string;
  /** claim values that make an operator */
  operators: string[];
  /** claim values that make a viewer */
  viewers: string[];
  /** the `aud` an access token must carry to be accepted on /api (machine clients); null: none are */
  audience: string | null;
  /** scopes asked for at sign-in */
  scopes: string;
  /** the dashboard's address as browsers reach it (no trailing slash), or null: from each request */
  publicUrl: string | null;
}

/** Unset and empty are the same thing for environment variables. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional());

const list = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  )
  .refine((v) => v.length > 0, 'must list at least one value (comma-separated)');

const httpUrl = (what: string) =>
  z
    .string()
    .trim()
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password;
      } catch {
        return false;
      }
    }, `must be ${what}`);

export const MAX_SESSION_HOURS = 24 * 30;

const oidcSchema = z.object({
  READPAST_OIDC_ISSUER: optional(httpUrl('the provider’s issuer URL, e.g. https://login.microsoftonline.com/<tenant-id>/v2.0')),
  READPAST_OIDC_CLIENT_ID: optional(z.string().trim()),
  READPAST_OIDC_CLIENT_SECRET: optional(z.string()),
  READPAST_SESSION_SECRET: optional(z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 48`)')),
  READPAST_SESSION_HOURS: optional(
    z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, `must be a number of hours from 0.05 to ${MAX_SESSION_HOURS}`)
      .transform(Number)
      .pipe(z.number().min(0.05, 'at least 0.05 (3 minutes)').max(MAX_SESSION_HOURS, `at most ${MAX_SESSION_HOURS}`)),
  ),
  READPAST_OIDC_ROLES_CLAIM: optional(
    z
      .string()
      .trim()
      .regex(/^[^.\s]+(\.[^.\s]+)*$/, 'must be a claim name or a dotted path (realm_access.roles)'),
  ),
  READPAST_OIDC_OPERATORS: optional(list),
  READPAST_OIDC_VIEWERS: optional(list),
  READPAST_OIDC_AUDIENCE: optional(z.string().trim()),
  READPAST_OIDC_SCOPES: optional(
    z
      .string()
      .trim()
      .refine((s) => s.split(/\s+/).includes('openid'), 'must include openid'),
  ),
  READPAST_PUBLIC_URL: optional(httpUrl('the dashboard’s address as browsers reach it, e.g. https://readpast.example.com')),
});

const OIDC_VARIABLES = Object.keys(oidcSchema.shape).filter((k) => k.startsWith('READPAST_OIDC_') || k.startsWith('READPAST_SESSION_'));

/** The OpenID Connect settings, or null when READPAST_OIDC_ISSUER is not set; throws ConfigError naming the variable. */
export function loadOidcConfig(env: Record<string, string | undefined>): OidcConfig | null {
  const r = oidcSchema.safeParse(env);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new ConfigError(`${issue.path.join('.')}: ${issue.message}`);
  }
  const e = r.data;
  if (!e.READPAST_OIDC_ISSUER) {
    const stray = OIDC_VARIABLES.find((k) => e[k as keyof typeof e] !== undefined);
    if (stray) throw new ConfigError(`${stray}: needs READPAST_OIDC_ISSUER (the provider) to be set as well`);
    return null;
  }
  const issuer = new URL(e.READPAST_OIDC_ISSUER);
  if (issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
    throw new ConfigError('READPAST_OIDC_ISSUER: must be https (plain http only for a provider on this machine)');
  }
  if (!e.READPAST_OIDC_CLIENT_ID) throw new ConfigError('READPAST_OIDC_CLIENT_ID: required with READPAST_OIDC_ISSUER');
  if (!e.READPAST_SESSION_SECRET) {
    throw new ConfigError('READPAST_SESSION_SECRET: required with READPAST_OIDC_ISSUER (at least 32 random characters)');
  }
  if (!e.READPAST_OIDC_OPERATORS && !e.READPAST_OIDC_VIEWERS) {
    throw new ConfigError(
      'READPAST_OIDC_OPERATORS: set the claim values (group ids, role names) of operators, or READPAST_OIDC_VIEWERS, or both',
    );
  }
  const operators = e.READPAST_OIDC_OPERATORS ?? [];
  const viewers = e.READPAST_OIDC_VIEWERS ?? [];
  const both = operators.find((v) => viewers.includes(v));
  if (both) throw new ConfigError(`READPAST_OIDC_VIEWERS: "${both}" is also an operator value; a value makes one role`);
  return {
    // the issuer exactly as given: it is compared with the provider's own `issuer` and every token's `iss`
    issuer: e.READPAST_OIDC_ISSUER,
    clientId: e.READPAST_OIDC_CLIENT_ID,
    clientSecret: e.READPAST_OIDC_CLIENT_SECRET ?? null,
    sessionSecret: e.READPAST_SESSION_SECRET,
    sessionSeconds: Math.round((e.READPAST_SESSION_HOURS ?? 8) * 3600),
    rolesClaim: e.READPAST_OIDC_ROLES_CLAIM ?? 'groups',
    operators,
    viewers,
    audience: e.READPAST_OIDC_AUDIENCE ?? null,
    scopes: e.READPAST_OIDC_SCOPES ?? 'openid profile email',
    publicUrl: e.READPAST_PUBLIC_URL ? e.READPAST_PUBLIC_URL.replace(/\/+$/, '') : null,
  };
}
