// Where an alert webhook may point. A webhook is POSTed to from inside the network, so by default an address
// that is not public is refused: loopback, link-local (the cloud metadata service among them), private, CGNAT,
// unspecified, multicast, broadcast and reserved — in IPv4 and in the IPv6 forms that carry an IPv4 address
// (::ffff:127.0.0.1, ::127.0.0.1, 64:ff9b::/96, 2002::/16). READPAST_WEBHOOK_ALLOW lets chosen CIDRs and host
// names through on purpose. A host name is resolved and every address it resolves to is checked, when a rule is
// saved (lib/api/alerts.ts) and again when a delivery connects (guardedLookup: the socket connects to the very
// addresses that were checked, with no second lookup in between).
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ConfigError } from './errors';
import { addressClass, embeddedIpv4, literalAddress } from './webhook-addresses';

export { addressClass, embeddedIpv4, literalAddress } from './webhook-addresses';

export const WEBHOOK_ALLOW_ENV = 'READPAST_WEBHOOK_ALLOW';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (the default asks the system's resolver, as a connection would). */
export type WebhookResolver = (host: string) => Promise<ResolvedAddress[]>;

/** READPAST_WEBHOOK_ALLOW, parsed: addresses and CIDRs, exact host names and `*.suffix` names. */
export interface WebhookAllow {
  /** the entries as given, normalised (shown in messages and tests) */
  readonly entries: readonly string[];
  readonly subnets: BlockList;
  readonly names: ReadonlySet<string>;
  /** `*.corp.example` kept as `.corp.example`: matches a.corp.example and a.b.corp.example, not corp.example */
  readonly suffixes: readonly string[];
}

export interface WebhookPolicy {
  readonly allow: WebhookAllow;
  readonly resolve: WebhookResolver;
}

export interface WebhookPolicyOptions {
  /** the allow-list: READPAST_WEBHOOK_ALLOW's syntax, or one parsed already; default: the variable itself */
  allow?: string | WebhookAllow;
  /** how host names are resolved (tests pass their own); default: the system's resolver */
  resolve?: WebhookResolver;
}

/** A webhook target refused by the policy; its message says which address, why, and how to allow it. */
export class WebhookRefusedError extends Error {
  override readonly name = 'WebhookRefusedError';
}

const ALLOW_HINT = `allow it with ${WEBHOOK_ALLOW_ENV}`;

// ---- allowed addresses and names (the address classes: webhook-addresses.ts) --------------

function allowedAddress(ip: string, allow: WebhookAllow): boolean {
  const plain = ip.split('%')[0]!;
  const family = isIP(plain);
  if (family === 4) return allow.subnets.check(plain, 'ipv4');
  if (family !== 6) return false;
  if (allow.subnets.check(plain, 'ipv6')) return true;
  const v4 = embeddedIpv4(plain);
  return v4 !== null && allow.subnets.check(v4, 'ipv4');
}

/** whether a host name is on the allow-list (exactly, or under a `*.` suffix) */
export function allowedName(host: string, allow: WebhookAllow): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return allow.names.has(h) || allow.suffixes.some((s) => h.endsWith(s));
}

/** Why a delivery must not go to `address` (reached through `host`, a name or the address itself), or null. */
export function addressRefusal(address: string, allow: WebhookAllow, host: string = address): string | null {
  if (allowedAddress(address, allow)) return null;
  const why = addressClass(address);
  if (why === null) return null;
  const literal = host === address || literalAddress(host) === address;
  return `${literal ? `${address} is` : `${host} resolves to ${address},`} ${why}; ${ALLOW_HINT}`;
}

// ---- the allow-list -----------------------------------------------------------------------

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function badEntry(entry: string): Error {
  return new ConfigError(
    `${WEBHOOK_ALLOW_ENV}: ${JSON.stringify(entry)} is not a CIDR, an IP address or a host name ` +
      '(comma-separated, e.g. 10.20.0.0/16,fd00:1::/64,10.1.2.3,hooks.corp.example,*.corp.example)',
  );
}

/** an address as the WHATWG URL parser spells it (2130706433 and 0x7f.1 are 127.0.0.1), or null */
function normalisedAddress(raw: string): string | null {
  const direct = raw.replace(/^\[(.*)\]$/, '$1');
  if (isIP(direct)) return direct;
  try {
    const u = new URL(`http://${raw}/`);
    return u.host === u.hostname ? literalAddress(u.hostname) : null;
  } catch {
    return null;
  }
}

/**
 * Parse READPAST_WEBHOOK_ALLOW: comma-separated CIDRs (10.20.0.0/16, fd00:1::/64), addresses (10.1.2.3, ::1),
 * host names (hooks.corp.example, exact) and `*.corp.example` (any name under it). Throws naming the
 * variable and the entry at fault.
 */
export function parseWebhookAllow(raw: string | undefined): WebhookAllow {
  const subnets = new BlockList();
  const names = new Set<string>();
  const suffixes: string[] = [];
  const entries: string[] = [];
  for (const part of (raw ?? '').split(',')) {
    const entry = part.trim();
    if (!entry) continue;
    const lower = entry.toLowerCase().replace(/\.$/, '');
    const slash = entry.indexOf('/');
    if (slash !== -1) {
      const net = normalisedAddress(entry.slice(0, slash));
      const bits = entry.slice(slash + 1);
      const family = net ? isIP(net) : 0;
      const max = family === 6 ? 128 : 32;
      if (!net || !/^\d{1,3}$/.test(bits) || Number(bits) > max) throw badEntry(entry);
      subnets.addSubnet(net, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
      entries.push(`${net}/${Number(bits)}`);
    } else if (lower.startsWith('*.')) {
      const suffix = lower.slice(2);
      if (!HOST_NAME.test(suffix) || normalisedAddress(suffix)) throw badEntry(entry);
      suffixes.push(`.${suffix}`);
      entries.push(`*.${suffix}`);
    } else {
      const address = normalisedAddress(entry);
      if (address) {
        subnets.addAddress(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
        entries.push(address);
      } else if (HOST_NAME.test(lower)) {
        names.add(lower);
        entries.push(lower);
      } else {
        throw badEntry(entry);
      }
    }
  }
  return { entries, subnets, names, suffixes };
}

export const systemResolver: WebhookResolver = async (host) => {
  const found = await dnsLookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The policy of this process: the allow-list given (or READPAST_WEBHOOK_ALLOW) and a resolver. */
export function webhookPolicy(opts: WebhookPolicyOptions = {}, env: Record<string, string | undefined> = process.env): WebhookPolicy {
  const allow = typeof opts.allow === 'object' ? opts.allow : parseWebhookAllow(opts.allow ?? env[WEBHOOK_ALLOW_ENV]);
  return { allow, resolve: opts.resolve ?? systemResolver };
}

// ---- checks ---------------------------------------------------------------------------------

/**
 * The addresses `host` (a name) resolves to, every one checked; throws WebhookRefusedError for the first
 * refused one. A resolver's own failure (ENOTFOUND, a timeout) is thrown as it is. A name on the
 * allow-list is not checked.
 */
export async function resolveChecked(host: string, policy: WebhookPolicy): Promise<ResolvedAddress[]> {
  const found = await policy.resolve(host);
  if (found.length === 0) throw Object.assign(new Error(`${host} resolves to no address`), { code: 'ENOTFOUND' });
  if (allowedName(host, policy.allow)) return found;
  for (const a of found) {
    const why = addressRefusal(a.address, policy.allow, host);
    if (why) throw new WebhookRefusedError(why);
  }
  return found;
}

/**
 * Check a webhook URL where a rule is saved: a literal address (in any spelling the URL parser accepts) is
 * checked as it is; a name is resolved and every address checked. Throws WebhookRefusedError saying why
 * (a name that does not resolve is refused too: a delivery could not reach it either).
 */
export async function checkWebhookUrl(url: string, policy: WebhookPolicy): Promise<void> {
  const { hostname } = new URL(url);
  const address = literalAddress(hostname);
  if (address) {
    const why = addressRefusal(address, policy.allow);
    if (why) throw new WebhookRefusedError(why);
    return;
  }
  if (allowedName(hostname, policy.allow)) return;
  try {
    await resolveChecked(hostname, policy);
  } catch (err) {
    if (err instanceof WebhookRefusedError) throw err;
    const code = (err as { code?: string }).code ?? (err as Error).message;
    throw new WebhookRefusedError(`${hostname} does not resolve (${code}): check the host name, or ${ALLOW_HINT}`);
  }
}

type LookupCallback = (err: Error | null, address: string | ResolvedAddress[], family?: number) => void;

/**
 * A `lookup` for net/http(s) connections: resolves the name with the policy's resolver, checks every address,
 * and hands the connection exactly those addresses (the TLS server name and Host header stay the name).
 * A refused address fails the connection with WebhookRefusedError before any connect.
 */
export function guardedLookup(policy: WebhookPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number | string } | number, callback: LookupCallback): void => {
    const opts = typeof options === 'object' && options !== null ? options : { family: options };
    const want = opts.family === 4 || opts.family === 'IPv4' ? 4 : opts.family === 6 || opts.family === 'IPv6' ? 6 : 0;
    resolveChecked(hostname, policy).then(
      (found) => {
        const usable = want ? found.filter((a) => a.family === want) : found;
        if (usable.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${want} address`), { code: 'ENOTFOUND' }), '');
        } else if (opts.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (err: Error) => callback(err, ''),
    );
  };
}
