// Alert webhooks cannot reach internal addresses, through the front door every surface uses (HTTP API, server
// actions, CLI, library): each refused class at save (400 naming url, saying why and how to allow it), and again
// at delivery through a resolver this test controls — a name public at save and loopback at delivery dies before
// any connect; redirects are not followed; the allow-list lets chosen addresses and names through. Nothing here
// connects to a public address: a public answer of the resolver is only ever checked, never connected to.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALERT_QUEUE } from '../engine/alert-types';
import { ValidationError } from '../engine/errors';
import { sleep } from '../engine/handlers';
import type { Pool } from '../engine/pool';
import type { Store } from '../engine/ports';
import type { WebhookPolicyOptions, WebhookResolver } from '../engine/webhook-guard';
import { openStore } from './open';
import { Readpast, readModelOf } from './readpast';

interface Received {
  host: string | undefined;
  path: string | undefined;
}

let dir: string;
let store: Store;
let rp: Readpast | null;
let pool: Pool | null;
let server: Server;
let port: number;
let received: Received[];
/** what the webhook answers next: a status and its headers; then 200 */
let answers: { status: number; headers?: Record<string, string> }[];
/** the resolver's table, changed by the tests as they go; each lookup counted */
let names: Record<string, string[]>;
let lookups: string[];

const resolve: WebhookResolver = async (host) => {
  lookups.push(host);
  const found = names[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

function open(webhooks: WebhookPolicyOptions = {}): Readpast {
  rp = new Readpast(store, { webhooks: { resolve, allow: '', ...webhooks } });
  return rp;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-ssrf-'));
  store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
  rp = null;
  pool = null;
  received = [];
  answers = [];
  names = {};
  lookups = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ host: req.headers.host, path: req.url });
      const a = answers.shift() ?? { status: 200 };
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.status === 200 ? 'ok' : 'moved');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  await pool?.stop(0);
  await store.close();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; last value ${JSON.stringify(v)}`);
    await sleep(25);
  }
}

/** the message of the 400 a save answers (field url), or null when it was saved */
async function refusedAtSave(r: Readpast, url: string): Promise<string | null> {
  try {
    await r.alerts.create({ name: `r${Math.random().toString(36).slice(2, 10)}`, kind: 'no_worker', url });
    return null;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    expect(err.field).toBe('url');
    return err.message;
  }
}

function startPool(r: Readpast): Promise<void> {
  pool = r.createPool({ concurrency: 1, pollMs: 20, heartbeatMs: 50, maintenance: false });
  return pool.start();
}

const HINT = 'allow it with READPAST_WEBHOOK_ALLOW';

/** a self-signed certificate made for this test (the client refuses it; the server sees the name it was asked for) */
const TLS = {
  key: [
    '-----BEGIN PRIVATE KEY-----',
    'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgppUha44881ZjURUR',
    'F1HWHzFIh2mMOU4UPveZH2LSp7ShRANCAAQ1vnYPoGGzq/qPuOyQPuCGkkdogwYI',
    'wCjmLa9f2uu8zBZA00sWTPJJ9L2DhXen5SWRpeY4OjTkAHalnm75w3+y',
    '-----END PRIVATE KEY-----',
  ].join('\n'),
  cert: [
    '-----BEGIN CERTIFICATE-----',
    'MIIBiDCCAS2gAwIBAgIULPdNvUtBWrEHWDWfayM6CrXQLDowCgYIKoZIzj0EAwIw',
    'GDEWMBQGA1UEAwwNcmVhZHBhc3QtdGVzdDAgFw0yNjExMjYxMzQxMjRaGA8yMTI2',
    'MTEwMjEzNDEyNFowGDEWMBQGA1UEAwwNcmVhZHBhc3QtdGVzdDBZMBMGByqGSM49',
    'AgEGCCqGSM49AwEHA0IABDW+dg+gYbOr+o+47JA+4IaSR2iDBgjAKOYtr1/a67zM',
    'FkDTSxZM8kn0vYOFd6flJZGl5jg6NOQAdqWebvnDf7KjUzBRMB0GA1UdDgQWBBR7',
    'n0wNCSGG7XDJFz+2zxf2zL3IjDAfBgNVHSMEGDAWgBR7n0wNCSGG7XDJFz+2zxf2',
    'zL3IjDAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQC83O84eSJn',
    '7cZmBrc1a+8Av+0F7q7KoL9bTq3hR2xMIwIhAKhLds8r0SlrcrVghV8xtB0/F9Sv',
    'zO0DpIcG+mVxEcct',
    '-----END CERTIFICATE-----',
  ].join('\n'),
};

describe('at save', () => {
  it.each([
    ['http://127.0.0.1:9/', '127.0.0.1 is a loopback address'],
    ['http://[::1]:9/', '::1 is a loopback address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address (the cloud metadata service)'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254 is a link-local address (the cloud metadata service)'],
    ['http://169.254.1.1/', '169.254.1.1 is a link-local address'],
    ['http://[fe80::1]/', 'fe80::1 is a link-local address'],
    ['http://10.0.0.5/', '10.0.0.5 is a private address'],
    ['http://172.16.5.4/', '172.16.5.4 is a private address'],
    ['https://192.168.0.10/', '192.168.0.10 is a private address'],
    ['http://[fd12::1]/', 'fd12::1 is a private address'],
    ['http://100.64.1.1/', '100.64.1.1 is a shared address (carrier-grade NAT, 100.64.0.0/10)'],
    ['http://0.0.0.0:9/', '0.0.0.0 is an unspecified address'],
    ['http://[::]:9/', ':: is an unspecified address'],
    ['http://224.0.0.1/', '224.0.0.1 is a multicast address'],
    ['http://[ff02::1]/', 'ff02::1 is a multicast address'],
    ['http://255.255.255.255/', '255.255.255.255 is a broadcast address'],
    ['http://[::ffff:127.0.0.1]:9/', '::ffff:7f00:1 is a loopback address (127.0.0.1 in IPv6 form)'],
    ['http://[::ffff:7f00:1]:9/', '::ffff:7f00:1 is a loopback address (127.0.0.1 in IPv6 form)'],
    [
      'http://[::ffff:169.254.169.254]/',
      '::ffff:a9fe:a9fe is a link-local address (the cloud metadata service) (169.254.169.254 in IPv6 form)',
    ],
    ['http://[::ffff:10.0.0.5]/', '::ffff:a00:5 is a private address (10.0.0.5 in IPv6 form)'],
    ['http://2130706433/', '127.0.0.1 is a loopback address'],
    ['http://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1/', '127.0.0.1 is a loopback address'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254 is a link-local address (the cloud metadata service)'],
  ])('refuses %s: 400 on url, saying why', async (url, why) => {
    expect(await refusedAtSave(open(), url)).toBe(`url: ${why}; ${HINT}`);
  });

  it('resolves a name and refuses it when it resolves to an internal address; a name that does not resolve too', async () => {
    names = {
      'metadata.google.internal': ['169.254.169.254'],
      localhost: ['127.0.0.1', '::1'],
      'hooks.example': ['93.184.216.34'],
      'split.example': ['93.184.216.34', '10.9.8.7'],
    };
    const r = open();
    expect(await refusedAtSave(r, 'http://metadata.google.internal/computeMetadata/v1/')).toBe(
      `url: metadata.google.internal resolves to 169.254.169.254, a link-local address (the cloud metadata service); ${HINT}`,
    );
    expect(await refusedAtSave(r, 'http://localhost:9/')).toBe(`url: localhost resolves to 127.0.0.1, a loopback address; ${HINT}`);
    expect(await refusedAtSave(r, 'https://split.example/')).toBe(`url: split.example resolves to 10.9.8.7, a private address; ${HINT}`);
    expect(await refusedAtSave(r, 'https://typo.invalid/x')).toBe(
      `url: typo.invalid does not resolve (ENOTFOUND): check the host name, or ${HINT}`,
    );
    // a public address is saved (checked, never connected to)
    expect(await refusedAtSave(r, 'https://hooks.example/T0/B0/x')).toBeNull();
    expect(await refusedAtSave(r, 'https://93.184.216.34/x')).toBeNull();
    expect((await r.alerts.list()).rules).toHaveLength(2);
  });

  it('checks a changed URL on an edit; a rule saved before the policy can still be edited, its deliveries refused', async () => {
    names = { 'hooks.example': ['93.184.216.34'] };
    const r = open();
    const ok = await r.alerts.create({ name: 'ok', kind: 'no_worker', url: 'https://hooks.example/a' });
    await expect(r.alerts.update(ok.id, { url: 'http://[::ffff:10.0.0.5]/' })).rejects.toThrow(
      `url: ::ffff:a00:5 is a private address (10.0.0.5 in IPv6 form); ${HINT}`,
    );
    expect((await readModelOf(r).getAlertRule(ok.id))?.url).toBe('https://hooks.example/a');
    // stored as an older version did, bypassing the front door
    const old = await store.commands.createAlertRule(
      { name: 'old', kind: 'no_worker', params: {}, url: 'http://10.0.0.5/hook', secret: null, format: 'json', dedupMs: 0, enabled: true },
      'test',
    );
    if (old === 'exists') throw new Error('unexpected');
    expect(await r.alerts.update(old.id, { enabled: false })).toMatchObject({ enabled: false });
    await startPool(r);
    const sent = await r.alerts.test(old.id);
    const dead = await until(
      () => readModelOf(r).getTask(sent.token),
      (t) => t?.status === 'dead' || t?.status === 'succeeded',
    );
    expect(dead).toMatchObject({ status: 'dead', attempts: 1 });
    expect(dead!.lastError?.message).toBe(`alert delivery to 10.0.0.5 refused: 10.0.0.5 is a private address; ${HINT}`);
  });

  it('saves what READPAST_WEBHOOK_ALLOW allows: a CIDR, an address, a name, a *.suffix', async () => {
    names = { 'hooks.corp.example': ['10.1.2.3'], 'a.svc.corp.example': ['10.4.4.4'], 'corp.example': ['10.0.0.1'] };
    const r = open({ allow: '10.20.0.0/16,192.168.0.10,hooks.corp.example,*.svc.corp.example' });
    expect(await refusedAtSave(r, 'http://10.20.1.1/')).toBeNull();
    expect(await refusedAtSave(r, 'http://[::ffff:10.20.1.1]/')).toBeNull();
    expect(await refusedAtSave(r, 'https://192.168.0.10/')).toBeNull();
    expect(await refusedAtSave(r, 'https://hooks.corp.example/x')).toBeNull();
    expect(await refusedAtSave(r, 'https://a.svc.corp.example/x')).toBeNull();
    expect(await refusedAtSave(r, 'http://10.21.0.1/')).toBe(`url: 10.21.0.1 is a private address; ${HINT}`);
    expect(await refusedAtSave(r, 'https://corp.example/')).toBe(`url: corp.example resolves to 10.0.0.1, a private address; ${HINT}`);
  });

  it('refuses a bad READPAST_WEBHOOK_ALLOW where the front door is made, naming the variable', () => {
    expect(() => open({ allow: '10.0.0.0/8,10.0.0.0/40' })).toThrow(
      'READPAST_WEBHOOK_ALLOW: "10.0.0.0/40" is not a CIDR, an IP address or a host name',
    );
  });
});

describe('at delivery', () => {
  it('a name public at save and loopback at delivery: dead at once, saying why, nothing sent', async () => {
    names = { 'flip.example': ['93.184.216.34'] };
    const r = open();
    const rule = await r.alerts.create({ name: 'flip', kind: 'no_worker', url: `http://flip.example:${port}/hook` });
    names = { 'flip.example': ['127.0.0.1'] };
    await startPool(r);
    const sent = await r.alerts.test(rule.id);
    const dead = await until(
      () => readModelOf(r).getTask(sent.token),
      (t) => t?.status === 'dead' || t?.status === 'succeeded',
    );
    expect(dead).toMatchObject({ status: 'dead', attempts: 1, queue: ALERT_QUEUE });
    expect(dead!.lastError?.message).toBe(
      `alert delivery to flip.example:${port} refused: flip.example resolves to 127.0.0.1, a loopback address; ${HINT}`,
    );
    expect(received).toEqual([]);
  });

  it('connects to the address it checked, keeping the name as Host, one lookup per delivery', async () => {
    names = { 'hooks.internal.test': ['127.0.0.1'] };
    const r = open({ allow: '127.0.0.1/32' });
    const rule = await r.alerts.create({ name: 'named', kind: 'no_worker', url: `http://hooks.internal.test:${port}/hook?k=1` });
    lookups = [];
    await startPool(r);
    const sent = await r.alerts.test(rule.id);
    await until(
      () => readModelOf(r).getTask(sent.token),
      (t) => t?.status === 'succeeded',
    );
    expect(received).toEqual([{ host: `hooks.internal.test:${port}`, path: '/hook?k=1' }]);
    expect(lookups).toEqual(['hooks.internal.test']);
  });

  it("over https, the TLS server name is the webhook's name, not the address connected to", async () => {
    const serverNames: string[] = [];
    const tls = createTlsServer(
      {
        ...TLS,
        SNICallback: (name, cb) => {
          serverNames.push(name);
          cb(null, createSecureContext(TLS));
        },
      },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    try {
      const tlsPort = (tls.address() as AddressInfo).port;
      names = { 'hooks.internal.test': ['127.0.0.1'] };
      const r = open({ allow: '127.0.0.1/32' });
      const rule = await r.alerts.create({ name: 'tls', kind: 'no_worker', url: `https://hooks.internal.test:${tlsPort}/hook` });
      await startPool(r);
      await r.alerts.test(rule.id);
      const attempts = await until(
        () => r.attempts({ queue: ALERT_QUEUE }),
        (p) => p.items.some((a) => a.outcome === 'failed'),
      );
      await pool!.stop(0);
      pool = null;
      // the certificate is verified as always (this one is self-signed)
      expect(attempts.items[0]!.errorMessage).toBe(`alert delivery to hooks.internal.test:${tlsPort} failed: DEPTH_ZERO_SELF_SIGNED_CERT`);
      expect(serverNames[0]).toBe('hooks.internal.test');
    } finally {
      await new Promise<void>((r) => tls.close(() => r()));
    }
  });

  it('a name on the allow-list is delivered to whatever it resolves to', async () => {
    names = { 'hooks.corp.example': ['127.0.0.1'] };
    const r = open({ allow: 'hooks.corp.example' });
    const rule = await r.alerts.create({ name: 'corp', kind: 'no_worker', url: `http://hooks.corp.example:${port}/x` });
    // the same address by number is not on the list
    expect(await refusedAtSave(r, `http://127.0.0.1:${port}/x`)).toBe(`url: 127.0.0.1 is a loopback address; ${HINT}`);
    await startPool(r);
    const sent = await r.alerts.test(rule.id);
    await until(
      () => readModelOf(r).getTask(sent.token),
      (t) => t?.status === 'succeeded',
    );
    expect(received.map((x) => x.host)).toEqual([`hooks.corp.example:${port}`]);
  });

  it('does not follow a redirect: the attempt fails saying so, the target is never asked', async () => {
    const r = open({ allow: '127.0.0.1/32' });
    const rule = await r.alerts.create({ name: 'moved', kind: 'no_worker', url: `http://127.0.0.1:${port}/hook` });
    answers = [{ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/iam' } }];
    await startPool(r);
    await r.alerts.test(rule.id);
    const attempts = await until(
      () => r.attempts({ queue: ALERT_QUEUE }),
      (p) => p.items.some((a) => a.outcome === 'failed'),
    );
    await pool!.stop(0);
    pool = null;
    expect(attempts.items[0]!.errorMessage).toBe(
      `webhook 127.0.0.1:${port} answered 302 (a redirect to 169.254.169.254): ` +
        'redirects are not followed, set the rule to the URL that answers',
    );
    expect(received).toEqual([{ host: `127.0.0.1:${port}`, path: '/hook' }]);
  });
});
