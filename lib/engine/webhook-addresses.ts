// The address classes a webhook may not point to by default (lib/engine/webhook-guard.ts): loopback,
// link-local (the cloud metadata service among them), private, CGNAT, unspecified, multicast, broadcast and
// reserved — in IPv4 and in the IPv6 forms that carry an IPv4 address.
import { BlockList, isIP } from 'node:net';

const LINK_LOCAL = 'a link-local address';
const METADATA = 'a link-local address (the cloud metadata service)';
const PRIVATE = 'a private address';
const RESERVED = 'a reserved address';

/** first match wins: the specific ranges come before the ranges that hold them */
const V4_CLASSES: [string, number, string][] = [
  ['169.254.169.254', 32, METADATA],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, LINK_LOCAL],
  ['10.0.0.0', 8, PRIVATE],
  ['172.16.0.0', 12, PRIVATE],
  ['192.168.0.0', 16, PRIVATE],
  ['100.64.0.0', 10, 'a shared address (carrier-grade NAT, 100.64.0.0/10)'],
  ['0.0.0.0', 8, 'an unspecified address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['255.255.255.255', 32, 'a broadcast address'],
  ['240.0.0.0', 4, RESERVED],
  ['192.0.0.0', 24, RESERVED],
  ['198.18.0.0', 15, RESERVED],
];

const V6_CLASSES: [string, number, string][] = [
  ['fd00:ec2::254', 128, METADATA],
  ['::1', 128, 'a loopback address'],
  ['::', 128, 'an unspecified address'],
  ['fe80::', 10, LINK_LOCAL],
  ['fc00::', 7, PRIVATE],
  ['fec0::', 10, PRIVATE],
  ['ff00::', 8, 'a multicast address'],
];

const classLists = (rows: [string, number, string][], family: 'ipv4' | 'ipv6') =>
  rows.map(([net, prefix, label]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, label };
  });
const V4 = classLists(V4_CLASSES, 'ipv4');
const V6 = classLists(V6_CLASSES, 'ipv6');

/** the 16 bytes of an IPv6 address (already checked by net.isIP), zone id dropped */
function v6Bytes(ip: string): number[] {
  let s = ip.split('%')[0]!.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? null : tail ? tail.split(':') : [];
  const groups = t === null ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 255];
  });
}

const zeros = (b: number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);

/**
 * The IPv4 address an IPv6 address carries, or null: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
 * (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
 */
export function embeddedIpv4(ip: string): string | null {
  const b = v6Bytes(ip);
  const v4 = (at: number) => b.slice(at, at + 4).join('.');
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  if (zeros(b, 0, 12) && !zeros(b, 12, 16)) return v4(12);
  if (zeros(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(b, 10, 12)) return v4(12);
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12)) return v4(12);
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  return null;
}

/** the literal address of a URL host (brackets and an IPv6 zone dropped), or null for a name */
export function literalAddress(hostname: string): string | null {
  const h = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(h.split('%')[0]!) ? h : null;
}

/** What kind of non-public address `ip` is ("a private address"; with its IPv4 form when it carries one), or null. */
export function addressClass(ip: string): string | null {
  const plain = ip.split('%')[0]!;
  const family = isIP(plain);
  if (family === 4) return V4.find((c) => c.list.check(plain, 'ipv4'))?.label ?? null;
  if (family !== 6) return 'not an IP address';
  const own = V6.find((c) => c.list.check(plain, 'ipv6'));
  if (own) return own.label;
  const v4 = embeddedIpv4(plain);
  const inner = v4 && V4.find((c) => c.list.check(v4, 'ipv4'));
  return inner ? `${inner.label} (${v4} in IPv6 form)` : null;
}
