import { describe, expect, it } from 'vitest';
import { bindRefusal, isLoopbackHost, loadServerConfig } from './config';
import { startupRefusal } from './boot';

describe('loadServerConfig', () => {
  it('defaults to embedded SQLite, 4 workers, 127.0.0.1:3000, no auth, no sql', () => {
    expect(loadServerConfig({})).toEqual({
      databaseUrl: 'sqlite:data/readpast.db',
      workers: 4,
      host: '127.0.0.1',
      port: 3000,
      auth: null,
      viewers: [],
      allowSql: false,
      handlersModule: null,
      webhookAllow: null,
      oidc: null,
      traceUrl: null,
    });
  });

  it('reads every variable, treating empty as unset', () => {
    const c = loadServerConfig({
      READPAST_DATABASE_URL: 'sqlite:/tmp/a.db',
      READPAST_WORKERS: '0',
      READPAST_HOST: '0.0.0.0',
      PORT: '8080',
      READPAST_AUTH: 'admin:pa:ss word',
      READPAST_ALLOW_SQL: '1',
      READPAST_HANDLERS: '',
      READPAST_WEBHOOK_ALLOW: ' 10.20.0.0/16, *.corp.example ',
      READPAST_TRACE_URL: ' https://tempo.example/trace/{traceId} ',
    });
    expect(c).toMatchObject({
      traceUrl: 'https://tempo.example/trace/{traceId}',
      webhookAllow: '10.20.0.0/16, *.corp.example',
      databaseUrl: 'sqlite:/tmp/a.db',
      workers: 0,
      host: '0.0.0.0',
      port: 8080,
      allowSql: true,
      handlersModule: null,
    });
    expect(c.auth).toEqual({ user: 'admin', password: 'pa:ss word' });
  });

  it.each([
    [{ READPAST_WORKERS: 'four' }, 'READPAST_WORKERS'],
    [{ READPAST_WORKERS: '65' }, 'READPAST_WORKERS'],
    [{ PORT: '70000' }, 'PORT'],
    [{ READPAST_AUTH: 'nopassword' }, 'READPAST_AUTH'],
    [{ READPAST_AUTH: 'user:' }, 'READPAST_AUTH'],
    [{ READPAST_ALLOW_SQL: 'maybe' }, 'READPAST_ALLOW_SQL'],
    [{ READPAST_HOST: 'a host; rm -rf' }, 'READPAST_HOST'],
    [{ READPAST_WEBHOOK_ALLOW: '10.0.0.0/33' }, 'READPAST_WEBHOOK_ALLOW'],
    [{ READPAST_WEBHOOK_ALLOW: 'hooks.corp,http://x/' }, 'READPAST_WEBHOOK_ALLOW'],
    [{ READPAST_TRACE_URL: 'https://tempo.example/trace/' }, 'READPAST_TRACE_URL'],
    [{ READPAST_TRACE_URL: 'javascript:alert({traceId})' }, 'READPAST_TRACE_URL'],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => loadServerConfig(env)).toThrow(new RegExp(`^${name}: `));
  });
});

describe('binding', () => {
  it('knows loopback addresses from wildcard and public ones', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1', 'app.localhost'])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.10', 'example.com', '127.0.0.1.example.com', '1127.0.0.1', '127.0.0.256'])
      expect(isLoopbackHost(h)).toBe(false);
  });

  it('refuses a non-loopback bind without credentials, allows it with them', () => {
    expect(bindRefusal({ host: '127.0.0.1', auth: null })).toBeNull();
    expect(bindRefusal({ host: '0.0.0.0', auth: null })).toMatch(/READPAST_AUTH/);
    expect(bindRefusal({ host: '0.0.0.0', auth: { user: 'a', password: 'b' } })).toBeNull();
  });

  it('checks the address actually given to next start, and treats a missing -H as every interface', () => {
    const open = loadServerConfig({});
    expect(startupRefusal(open, ['node', 'next', 'start', '-H', '127.0.0.1', '-p', '3000'])).toBeNull();
    expect(startupRefusal(open, ['node', 'next', 'start', '--hostname=0.0.0.0'])).toMatch(/0\.0\.0\.0/);
    expect(startupRefusal(open, ['node', 'next', 'start', '-p', '3000'])).toMatch(/refusing/);
    expect(startupRefusal(open, ['node', 'start-server.js'])).toBeNull(); // dev worker: READPAST_HOST decides
    expect(startupRefusal(loadServerConfig({ READPAST_HOST: '10.0.0.5' }), ['node', 'start-server.js'])).toMatch(/10\.0\.0\.5/);
    const withAuth = loadServerConfig({ READPAST_AUTH: 'a:b' });
    expect(startupRefusal(withAuth, ['node', 'next', 'start'])).toBeNull();
  });
});

describe('READPAST_VIEWERS', () => {
  it('parses read-only users, and needs an operator with credentials of its own', () => {
    expect(loadServerConfig({ READPAST_AUTH: 'admin:pw', READPAST_VIEWERS: 'helpdesk:a1,auditor:b2' }).viewers).toEqual([
      { user: 'helpdesk', password: 'a1' },
      { user: 'auditor', password: 'b2' },
    ]);
    expect(() => loadServerConfig({ READPAST_VIEWERS: 'helpdesk:a1' })).toThrow(/READPAST_VIEWERS: needs READPAST_AUTH/);
    expect(() => loadServerConfig({ READPAST_AUTH: 'admin:pw', READPAST_VIEWERS: 'admin:x' })).toThrow(/of its own/);
    expect(() => loadServerConfig({ READPAST_AUTH: 'admin:pw', READPAST_VIEWERS: 'h:pw' })).toThrow(/of its own/);
    expect(() => loadServerConfig({ READPAST_AUTH: 'admin:pw', READPAST_VIEWERS: 'nopassword' })).toThrow(/READPAST_VIEWERS/);
    expect(() => loadServerConfig({ READPAST_AUTH: 'admin:pw', READPAST_VIEWERS: 'a:b,,c:d' })).toThrow(/READPAST_VIEWERS/);
    expect(loadServerConfig({}).viewers).toEqual([]);
  });
});
