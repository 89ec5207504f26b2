// A real OpenID provider for the sign-on tests (oidc-provider): its development login form (any password),
// one confidential client for the dashboard, machine clients with the client-credentials grant, and JWT
// access tokens for two resources (the dashboard's API and another one). Each account and machine client
// has its groups claim: alice and ci-operator are operators, victor and ci-viewer viewers, nora neither.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

export const OPERATORS_GROUP = 'readpast-operators';
export const VIEWERS_GROUP = 'readpast-viewers';
export const API_AUDIENCE = 'urn:readpast:api';
export const OTHER_AUDIENCE = 'urn:other:api';
export const DASHBOARD_CLIENT = { id: 'readpast-dashboard', secret: 'dashboard-client-secret-0123456789' };
export const MACHINES = {
  'ci-operator': { secret: 'ci-operator-secret-0123456789', groups: [OPERATORS_GROUP] },
  'ci-viewer': { secret: 'ci-viewer-secret-0123456789', groups: [VIEWERS_GROUP] },
} as const;

/** the people of the development login form (login = the account id = `sub`) */
export const PEOPLE: Record<string, { email: string; name: string; groups: string[] }> = {
  alice: { email: 'alice@example.test', name: 'Alice Operator', groups: ['everyone', OPERATORS_GROUP] },
  victor: { email: 'victor@example.test', name: 'Victor Viewer', groups: ['everyone', VIEWERS_GROUP] },
  nora: { email: 'nora@example.test', name: 'Nora Nobody', groups: ['everyone', 'sales'] },
};

export interface TestProvider {
  issuer: string;
  server: Server;
  /** an access token of the client-credentials grant for `resource` (a JWT whose `aud` is it) */
  machineToken(client: keyof typeof MACHINES, resource: string): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a provider on 127.0.0.1:`port` whose dashboard client redirects to `dashboard` (an origin). */
export async function startTestProvider(port: number, dashboard: string): Promise<TestProvider> {
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: `key-${port}-${Date.now()}`, alg: 'RS256', use: 'sig' };
  const configuration: Configuration = {
    clients: [
      {
        client_id: DASHBOARD_CLIENT.id,
        client_secret: DASHBOARD_CLIENT.secret,
        redirect_uris: [`${dashboard}/auth/callback`],
        post_logout_redirect_uris: [`${dashboard}/auth/signed-out`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      ...Object.entries(MACHINES).map(([id, m]) => ({
        client_id: id,
        client_secret: m.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic' as const,
      })),
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [`cookie-key-${port}-${Math.random()}`] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    },
    scopes: ['openid', 'offline_access', 'email', 'profile', 'groups', 'api'],
    async findAccount(_ctx: KoaContextWithOIDC, id: string) {
      const p = PEOPLE[id] ?? { email: `${id}@example.test`, name: id, groups: [] };
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: p.email, email_verified: true, name: p.name, preferred_username: id, groups: p.groups }),
      };
    },
    // a first-party client: the person is not asked to consent (as an organisation's admin consent does)
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const session = ctx.oidc.session!;
      const clientId = ctx.oidc.client!.clientId;
      const existing = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId: session.accountId! });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      session.grantIdFor(clientId, grant.jti);
      return grant;
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => undefined,
        useGrantedResource: async () => false,
        getResourceServerInfo: async (_ctx, resource) => {
          if (resource !== API_AUDIENCE && resource !== OTHER_AUDIENCE) throw new errors.InvalidTarget();
          return { scope: 'api', audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    async extraTokenClaims(_ctx, token) {
      const m = MACHINES[(token as { clientId?: string }).clientId as keyof typeof MACHINES];
      return token.kind === 'ClientCredentials' && m ? { groups: [...m.groups] } : undefined;
    },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, ClientCredentials: 600, IdToken: 600, Session: 3600, Interaction: 600, Grant: 3600 },
  };
  const provider = new Provider(issuer, configuration);
  const server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  if (actual !== port) throw new Error(`the test provider listens on ${actual}, not ${port}`);
  return {
    issuer,
    server,
    async machineToken(clientId, resource) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${MACHINES[clientId].secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'api' }),
      });
      const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`client credentials refused: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
