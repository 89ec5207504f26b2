// Sign-on with an OpenID Connect provider: discovery, the authorization code flow with PKCE (openid-client),
// the ID token's and machine clients' access tokens' signatures checked against the provider's JWKS (jose;
// keys fetched again when an unknown key id appears, so the provider's key rotation is followed).
// The provider's metadata and keys are cached per module copy: Next.js bundles the proxy, each route
// handler and the server actions separately, each with its own openid-client, whose Configuration is only
// good for the copy that made it (it checks instanceof); so each bundle discovers once.
import * as client from 'openid-client';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { OidcConfig } from './config-oidc';
import type { Identity } from './identity';
import { clientName, hasRolesClaim, personName, roleOf, roleValues, shownValues } from './oidc-claims';
import type { Session, SignIn } from './session';

/** The signature algorithms accepted: asymmetric only (never `none`, never an HMAC keyed with a public key). */
export const ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** An ID token larger than this is not kept in the session cookie (the provider's sign-out then gets client_id instead). */
const MAX_KEPT_ID_TOKEN = 2500;

export const JWKS_COOLDOWN_MS = 5_000;

export class SignInError extends Error {
  override readonly name = 'SignInError';
}

export interface Provider {
  config: client.Configuration;
  jwks: JWTVerifyGetKey;
  algorithms: string[];
}

const cache = new Map<string, Promise<Provider>>();

/** The provider's metadata (discovery, cached; asked again after a failure) and its key set. */
export function provider(cfg: OidcConfig): Promise<Provider> {
  const id = `${cfg.issuer}\0${cfg.clientId}`;
  let p = cache.get(id);
  if (!p) {
    p = discover(cfg);
    cache.set(id, p);
    p.catch(() => cache.delete(id));
  }
  return p;
}

async function discover(cfg: OidcConfig): Promise<Provider> {
  const issuer = new URL(cfg.issuer);
  const insecure = issuer.protocol === 'http:'; // only a provider on loopback (config-oidc.ts)
  let config: client.Configuration;
  try {
    config = await client.discovery(
      issuer,
      cfg.clientId,
      cfg.clientSecret ?? undefined,
      cfg.clientSecret ? client.ClientSecretBasic(cfg.clientSecret) : client.None(),
      insecure ? { execute: [client.allowInsecureRequests] } : undefined,
    );
  } catch (err) {
    throw new SignInError(`the sign-on provider ${cfg.issuer} cannot be reached or is not an OpenID provider: ${(err as Error).message}`);
  }
  const meta = config.serverMetadata();
  if (!meta.jwks_uri) throw new SignInError(`the sign-on provider ${cfg.issuer} publishes no jwks_uri`);
  const offered = meta.id_token_signing_alg_values_supported ?? ['RS256'];
  const algorithms = offered.filter((a) => ASYMMETRIC_ALGS.includes(a));
  if (!algorithms.length) throw new SignInError(`the sign-on provider ${cfg.issuer} signs ID tokens with no asymmetric algorithm`);
  // a token signed with a key id not in the cached set fetches the set again (rotation), at most once per
  // JWKS_COOLDOWN_MS (a flood of made-up key ids costs the provider a request per cooldown, no more)
  const jwks = createRemoteJWKSet(new URL(meta.jwks_uri), { cooldownDuration: JWKS_COOLDOWN_MS });
  return { config, jwks, algorithms };
}

export interface VerifyOptions {
  issuer: string;
  audience: string;
  algorithms: string[];
  /** an ID token must carry this nonce; an access token must carry none (an ID token is not an access token) */
  nonce?: string;
}

/** A JWT's claims when its signature (by the provider's keys), issuer, audience, expiry and nonce hold; throws otherwise. */
export async function verifyJwt(token: string, jwks: JWTVerifyGetKey, o: VerifyOptions): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, jwks, {
    issuer: o.issuer,
    audience: o.audience,
    algorithms: o.algorithms.filter((a) => ASYMMETRIC_ALGS.includes(a)),
    requiredClaims: ['exp', 'sub'],
    clockTolerance: 30,
  });
  if (o.nonce !== undefined ? payload.nonce !== o.nonce : payload.nonce !== undefined) {
    throw new joseErrors.JWTClaimValidationFailed(
      o.nonce !== undefined ? 'unexpected "nonce"' : 'an ID token is not an access token',
      payload,
      'nonce',
    );
  }
  return payload;
}

/** The provider's authorization URL for a new sign-in, and what the callback must see again. */
export async function beginSignIn(cfg: OidcConfig, redirectUri: string, returnTo: string): Promise<{ url: URL; signIn: SignIn }> {
  const p = await provider(cfg);
  const signIn: SignIn = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    returnTo,
  };
  const url = client.buildAuthorizationUrl(p.config, {
    redirect_uri: redirectUri,
    scope: cfg.scopes,
    state: signIn.state,
    nonce: signIn.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(signIn.verifier),
    code_challenge_method: 'S256',
  });
  return { url, signIn };
}

/**
 * The callback: the code exchanged (state, PKCE, the response's issuer checked by openid-client), the ID
 * token verified (signature against the JWKS, issuer, audience = client id, expiry, nonce), the roles
 * claim read from it (or, when it lacks the claim, from the userinfo endpoint).
 */
export async function completeSignIn(
  cfg: OidcConfig,
  redirectUri: string,
  query: URLSearchParams,
  signIn: SignIn,
): Promise<Omit<Session, 'exp'>> {
  const p = await provider(cfg);
  const current = new URL(redirectUri);
  current.search = query.toString();
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(p.config, current, {
      pkceCodeVerifier: signIn.verifier,
      expectedState: signIn.state,
      expectedNonce: signIn.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw new SignInError(describeOidcError(err));
  }
  const idToken = tokens.id_token;
  if (!idToken) throw new SignInError('the provider returned no ID token');
  let claims: JWTPayload;
  try {
    claims = await verifyJwt(idToken, p.jwks, {
      issuer: cfg.issuer,
      audience: cfg.clientId,
      algorithms: p.algorithms,
      nonce: signIn.nonce,
    });
  } catch (err) {
    throw new SignInError(`the ID token was refused: ${(err as Error).message}`);
  }
  const sub = claims.sub!;
  let all: Record<string, unknown> = claims;
  if (!hasRolesClaim(claims, cfg) && p.config.serverMetadata().userinfo_endpoint && tokens.access_token) {
    try {
      all = { ...(await client.fetchUserInfo(p.config, tokens.access_token, sub)), ...claims };
    } catch (err) {
      throw new SignInError(`the provider's userinfo endpoint failed: ${describeOidcError(err)}`);
    }
  }
  const values = roleValues(all, cfg);
  const role = roleOf(values, cfg);
  const session: Omit<Session, 'exp'> = { name: personName(all), sub, role };
  if (!role) session.values = shownValues(values);
  if (idToken.length <= MAX_KEPT_ID_TOKEN) session.idToken = idToken;
  return session;
}

/** The provider's error code and description, else openid-client's message with its cause (`unexpected "iss"…`). */
function describeOidcError(err: unknown): string {
  type Described = { message?: string; error?: string; error_description?: string };
  const e = err as Described & { cause?: Described };
  const code = e.error ?? e.cause?.error;
  const desc = e.error_description ?? e.cause?.error_description;
  if (code) return `${code}${desc ? `: ${desc}` : ''}`;
  const message = (e.message ?? String(err)).replace(/\.$/, '');
  return e.cause?.message ? `${message}: ${e.cause.message.replace(/\.$/, '')}` : message;
}

/**
 * A machine client's identity from a provider-issued access token (client credentials) whose `aud` is
 * READPAST_OIDC_AUDIENCE, or null when the token is not one (wrong signature, issuer, audience, expired).
 */
export async function verifyAccessToken(cfg: OidcConfig, token: string): Promise<Identity | null> {
  if (!cfg.audience || token.split('.').length !== 3) return null;
  const p = await provider(cfg);
  let claims: JWTPayload;
  try {
    claims = await verifyJwt(token, p.jwks, { issuer: cfg.issuer, audience: cfg.audience, algorithms: p.algorithms });
  } catch {
    return null;
  }
  const name = claims.email || claims.preferred_username ? personName(claims) : clientName(claims);
  return { user: name, subject: claims.sub!, role: roleOf(roleValues(claims, cfg), cfg), via: 'token' };
}

/** Where to send the browser to sign out at the provider too, or null when it has no end_session_endpoint. */
export async function endSessionUrl(cfg: OidcConfig, idToken: string | undefined, postLogoutRedirectUri: string): Promise<URL | null> {
  const p = await provider(cfg);
  if (!p.config.serverMetadata().end_session_endpoint) return null;
  const params: Record<string, string> = { post_logout_redirect_uri: postLogoutRedirectUri, client_id: cfg.clientId };
  if (idToken) params.id_token_hint = idToken;
  return client.buildEndSessionUrl(p.config, params);
}
