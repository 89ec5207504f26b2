// The webhook policy on its own: every refused class of address in IPv4 and in the IPv6 forms that carry one,
// odd IPv4 spellings normalised by the URL parser, READPAST_WEBHOOK_ALLOW's entries (and its bad ones), names
// checked through a resolver the test controls, and the connection lookup that hands out only checked addresses.
import { describe, expect, it } from 'vitest';
import {
  addressClass,
  checkWebhookUrl,
  embeddedIpv4,
  guardedLookup,
  parseWebhookAllow,
  webhookPolicy,
  WebhookRefusedError,
  type ResolvedAddress,
  type WebhookResolver,
} from './webhook-guard';

/** a resolver answering from a table (a missing name: ENOTFOUND, as the system's does) */
const table =
  (names: Record<string, string[]>): WebhookResolver =>
  async (host) => {
    const found = names[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

async function refusal(url: string, policy = webhookPolicy({ allow: '', resolve: table({}) })): Promise<string | null> {
  try {
    await checkWebhookUrl(url, policy);
    return null;
  } catch (err) {
    if (err instanceof WebhookRefusedError) return err.message;
    throw err;
  }
}

describe('address classes', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['169.254.169.254', 'a link-local address (the cloud metadata service)'],
    ['fd00:ec2::254', 'a link-local address (the cloud metadata service)'],
    ['169.254.10.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['10.0.0.5', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['100.64.0.1', 'a shared address (carrier-grade NAT, 100.64.0.0/10)'],
    ['100.127.255.254', 'a shared address (carrier-grade NAT, 100.64.0.0/10)'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['240.0.0.1', 'a reserved address'],
    ['::ffff:127.0.0.1', 'a loopback address (127.0.0.1 in IPv6 form)'],
    ['::ffff:7f00:1', 'a loopback address (127.0.0.1 in IPv6 form)'],
    ['::7f00:1', 'a loopback address (127.0.0.1 in IPv6 form)'],
    ['::ffff:a9fe:a9fe', 'a link-local address (the cloud metadata service) (169.254.169.254 in IPv6 form)'],
    ['::ffff:10.0.0.5', 'a private address (10.0.0.5 in IPv6 form)'],
    ['::ffff:0:c0a8:101', 'a private address (192.168.1.1 in IPv6 form)'],
    ['64:ff9b::a00:5', 'a private address (10.0.0.5 in IPv6 form)'],
    ['2002:7f00:1::', 'a loopback address (127.0.0.1 in IPv6 form)'],
    ['::ffff:100.64.0.1', 'a shared address (carrier-grade NAT, 100.64.0.0/10) (100.64.0.1 in IPv6 form)'],
    ['::ffff:0.0.0.0', 'an unspecified address (0.0.0.0 in IPv6 form)'],
    ['::ffff:224.0.0.1', 'a multicast address (224.0.0.1 in IPv6 form)'],
    ['::ffff:255.255.255.255', 'a broadcast address (255.255.255.255 in IPv6 form)'],
  ])('%s is %s', (ip, label) => {
    expect(addressClass(ip)).toBe(label);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:93.184.216.34', '2002:5db8:d822::'])(
    '%s is public',
    (ip) => {
      expect(addressClass(ip)).toBeNull();
    },
  );

  it('reads the IPv4 address an IPv6 form carries', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('0:0:0:0:0:ffff:a00:5')).toBe('10.0.0.5');
    expect(embeddedIpv4('2606:4700::1111')).toBeNull();
  });
});

describe('checkWebhookUrl', () => {
  it('refuses literal addresses in any spelling the URL parser accepts, saying why and how to allow it', async () => {
    expect(await refusal('http://10.0.0.5/x')).toBe('10.0.0.5 is a private address; allow it with READPAST_WEBHOOK_ALLOW');
    expect(await refusal('http://2130706433:8080/')).toBe('127.0.0.1 is a loopback address; allow it with READPAST_WEBHOOK_ALLOW');
    expect(await refusal('http://0x7f.1/')).toMatch(/^127\.0\.0\.1 is a loopback address/);
    expect(await refusal('http://017700000001/')).toMatch(/^127\.0\.0\.1 is a loopback address/);
    expect(await refusal('http://127.1/')).toMatch(/^127\.0\.0\.1 is a loopback address/);
    expect(await refusal('http://0/')).toMatch(/^0\.0\.0\.0 is an unspecified address/);
    expect(await refusal('http://[::ffff:127.0.0.1]:9/')).toBe(
      '::ffff:7f00:1 is a loopback address (127.0.0.1 in IPv6 form); allow it with READPAST_WEBHOOK_ALLOW',
    );
    expect(await refusal('https://[::1]/')).toMatch(/^::1 is a loopback address/);
    expect(await refusal('http://169.254.169.254/latest/meta-data/')).toMatch(/the cloud metadata service/);
    expect(await refusal('http://[fd00:ec2::254]/')).toMatch(/the cloud metadata service/);
  });

  it('resolves a name and refuses it when any of its addresses is refused', async () => {
    const resolve = table({
      'metadata.google.internal': ['169.254.169.254'],
      localhost: ['127.0.0.1', '::1'],
      'mixed.example': ['93.184.216.34', '10.1.1.1'],
      'hooks.example': ['93.184.216.34', '2606:4700::1111'],
    });
    const policy = webhookPolicy({ allow: '', resolve });
    expect(await refusal('http://metadata.google.internal/computeMetadata/v1/', policy)).toBe(
      'metadata.google.internal resolves to 169.254.169.254, a link-local address (the cloud metadata service); ' +
        'allow it with READPAST_WEBHOOK_ALLOW',
    );
    expect(await refusal('http://localhost:9/', policy)).toMatch(/^localhost resolves to 127\.0\.0\.1, a loopback address/);
    expect(await refusal('http://mixed.example/', policy)).toMatch(/^mixed\.example resolves to 10\.1\.1\.1, a private address/);
    expect(await refusal('https://hooks.example/x', policy)).toBeNull();
    expect(await refusal('https://nowhere.invalid/x', policy)).toBe(
      'nowhere.invalid does not resolve (ENOTFOUND): check the host name, or allow it with READPAST_WEBHOOK_ALLOW',
    );
  });

  it('lets through what READPAST_WEBHOOK_ALLOW names: CIDRs (also in IPv6 form), addresses, names and *.suffix names', async () => {
    const resolve = table({ 'hooks.corp.example': ['10.1.2.3'], 'a.b.corp.example': ['10.9.9.9'], 'corp.example': ['10.0.0.1'] });
    const policy = webhookPolicy({
      allow: '127.0.0.1/32, 10.20.0.0/16,fd00:1::/64, 192.168.7.7, hooks.corp.example, *.b.corp.example',
      resolve,
    });
    expect(policy.allow.entries).toEqual([
      '127.0.0.1/32',
      '10.20.0.0/16',
      'fd00:1::/64',
      '192.168.7.7',
      'hooks.corp.example',
      '*.b.corp.example',
    ]);
    expect(await refusal('http://127.0.0.1:9/', policy)).toBeNull();
    expect(await refusal('http://[::ffff:127.0.0.1]:9/', policy)).toBeNull();
    expect(await refusal('http://127.0.0.2/', policy)).toMatch(/^127\.0\.0\.2 is a loopback address/);
    expect(await refusal('http://10.20.30.40/', policy)).toBeNull();
    expect(await refusal('http://10.21.0.1/', policy)).toMatch(/private/);
    expect(await refusal('http://[fd00:1::9]/', policy)).toBeNull();
    expect(await refusal('http://192.168.7.7/', policy)).toBeNull();
    expect(await refusal('http://hooks.corp.example/', policy)).toBeNull();
    expect(await refusal('http://a.b.corp.example/', policy)).toBeNull();
    expect(await refusal('http://x.a.b.corp.example/', policy)).toBeNull();
    expect(await refusal('http://corp.example/', policy)).toMatch(/^corp\.example resolves to 10\.0\.0\.1/);
  });

  it.each([
    '10.0.0.0/33',
    '10.0.0.0/',
    'fd00::/129',
    '10.0.0.x/8',
    'http://hooks/',
    'hooks.corp:8080',
    'a b',
    '*.',
    '*.10.0.0.1',
    'user@host',
  ])('refuses the allow-list entry %j naming the variable', (entry) => {
    expect(() => parseWebhookAllow(`127.0.0.1/32,${entry}`)).toThrow(
      `READPAST_WEBHOOK_ALLOW: ${JSON.stringify(entry)} is not a CIDR, an IP address or a host name`,
    );
  });

  it('normalises odd spellings in the allow-list too, and takes an empty one as none', () => {
    expect(parseWebhookAllow('2130706433,0x0a.1/32, ,').entries).toEqual(['127.0.0.1', '10.0.0.1/32']);
    expect(parseWebhookAllow('').entries).toEqual([]);
    expect(parseWebhookAllow(undefined).entries).toEqual([]);
  });
});

describe('guardedLookup', () => {
  const lookup = (policy: ReturnType<typeof webhookPolicy>, host: string, options: { all?: boolean; family?: number }) =>
    new Promise<{ err: Error | null; address: string | ResolvedAddress[]; family?: number }>((resolve) =>
      guardedLookup(policy)(host, options, (err, address, family) => resolve({ err, address, family })),
    );

  it('hands the connection the addresses it checked, once each lookup', async () => {
    let calls = 0;
    const policy = webhookPolicy({
      allow: '',
      resolve: async () => {
        calls++;
        return [
          { address: '93.184.216.34', family: 4 },
          { address: '2606:4700::1111', family: 6 },
        ];
      },
    });
    expect(await lookup(policy, 'hooks.example', { all: true })).toEqual({
      err: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
      family: undefined,
    });
    expect(await lookup(policy, 'hooks.example', { family: 6 })).toEqual({ err: null, address: '2606:4700::1111', family: 6 });
    expect(calls).toBe(2);
  });

  it('fails the connection before any connect when an address is refused, even one of a family not used', async () => {
    const policy = webhookPolicy({ allow: '', resolve: table({ 'flip.example': ['93.184.216.34', '::1'] }) });
    const r = await lookup(policy, 'flip.example', { family: 4 });
    expect(r.err).toBeInstanceOf(WebhookRefusedError);
    expect(r.err?.message).toBe('flip.example resolves to ::1, a loopback address; allow it with READPAST_WEBHOOK_ALLOW');
  });
});
