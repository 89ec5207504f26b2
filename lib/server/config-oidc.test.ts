import { describe, expect, it } from 'vitest';
import { startupRefusal } from './boot';
import { bindRefusal, loadServerConfig } from './config';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const base = {
  READPAST_OIDC_ISSUER: 'https://login.microsoftonline.com/11111111-2222-3333-4444-555555555555/v2.0',
  READPAST_OIDC_CLIENT_ID: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
  READPAST_SESSION_SECRET: SECRET,
  READPAST_OIDC_OPERATORS: 'ops-group-id',
};

describe('READPAST_OIDC_*', () => {
  it('is off without an issuer', () => {
    expect(loadServerConfig({}).oidc).toBeNull();
  });

  it('reads the provider, the client, the roles and the session settings', () => {
    expect(loadServerConfig(base).oidc).toEqual({
      issuer: base.READPAST_OIDC_ISSUER,
      clientId: base.READPAST_OIDC_CLIENT_ID,
      clientSecret: null,
      sessionSecret: SECRET,
      sessionSeconds: 8 * 3600,
      rolesClaim: 'groups',
      operators: ['ops-group-id'],
      viewers: [],
      audience: null,
      scopes: 'openid profile email',
      publicUrl: null,
    });
    const c = loadServerConfig({
      ...base,
      READPAST_OIDC_CLIENT_SECRET: 's3cret',
      READPAST_OIDC_ROLES_CLAIM: 'realm_access.roles',
      READPAST_OIDC_OPERATORS: ' a , b ',
      READPAST_OIDC_VIEWERS: 'c',
      READPAST_OIDC_AUDIENCE: 'api://readpast',
      READPAST_OIDC_SCOPES: 'openid email groups',
      READPAST_SESSION_HOURS: '0.5',
      READPAST_PUBLIC_URL: 'https://readpast.example.com/',
    }).oidc;
    expect(c).toMatchObject({
      clientSecret: 's3cret',
      rolesClaim: 'realm_access.roles',
      operators: ['a', 'b'],
      viewers: ['c'],
      audience: 'api://readpast',
      scopes: 'openid email groups',
      sessionSeconds: 1800,
      publicUrl: 'https://readpast.example.com',
    });
  });

  it.each([
    [{ ...base, READPAST_OIDC_ISSUER: 'not a url' }, 'READPAST_OIDC_ISSUER'],
    [{ ...base, READPAST_OIDC_ISSUER: 'http://idp.example.com' }, 'READPAST_OIDC_ISSUER: must be https'],
    [{ ...base, READPAST_OIDC_CLIENT_ID: '' }, 'READPAST_OIDC_CLIENT_ID: required'],
    [{ ...base, READPAST_SESSION_SECRET: undefined }, 'READPAST_SESSION_SECRET: required'],
    [{ ...base, READPAST_SESSION_SECRET: 'short' }, 'READPAST_SESSION_SECRET: must be at least 32'],
    [{ ...base, READPAST_OIDC_OPERATORS: undefined }, 'READPAST_OIDC_OPERATORS: set the claim values'],
    [{ ...base, READPAST_OIDC_OPERATORS: ' , ' }, 'READPAST_OIDC_OPERATORS: must list'],
    [{ ...base, READPAST_OIDC_VIEWERS: 'x,ops-group-id' }, 'READPAST_OIDC_VIEWERS: "ops-group-id" is also'],
    [{ ...base, READPAST_OIDC_SCOPES: 'email profile' }, 'READPAST_OIDC_SCOPES: must include openid'],
    [{ ...base, READPAST_SESSION_HOURS: '0' }, 'READPAST_SESSION_HOURS'],
    [{ ...base, READPAST_SESSION_HOURS: '1000' }, 'READPAST_SESSION_HOURS'],
    [{ ...base, READPAST_OIDC_ROLES_CLAIM: 'a..b' }, 'READPAST_OIDC_ROLES_CLAIM'],
    [{ ...base, READPAST_PUBLIC_URL: 'ftp://x' }, 'READPAST_PUBLIC_URL'],
    [{ READPAST_OIDC_CLIENT_ID: 'x' }, 'READPAST_OIDC_CLIENT_ID: needs READPAST_OIDC_ISSUER'],
    [{ READPAST_SESSION_SECRET: SECRET }, 'READPAST_SESSION_SECRET: needs READPAST_OIDC_ISSUER'],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadServerConfig(env)).toThrow(message);
  });

  it('allows a plain-http issuer on this machine only', () => {
    expect(loadServerConfig({ ...base, READPAST_OIDC_ISSUER: 'http://127.0.0.1:3339' }).oidc?.issuer).toBe('http://127.0.0.1:3339');
    expect(loadServerConfig({ ...base, READPAST_OIDC_ISSUER: 'http://localhost:8080/realms/x' }).oidc).not.toBeNull();
  });

  it('counts as credentials for listening on a public address', () => {
    const cfg = loadServerConfig({ ...base, READPAST_HOST: '0.0.0.0' });
    expect(bindRefusal(cfg)).toBeNull();
    expect(startupRefusal(cfg, ['node', 'next', 'start', '-H', '0.0.0.0'])).toBeNull();
    const open = loadServerConfig({ READPAST_HOST: '0.0.0.0' });
    expect(bindRefusal(open)).toMatch(/READPAST_AUTH.*READPAST_OIDC_ISSUER/);
  });
});
