// Connection settings for SQL Server from `READPAST_DATABASE_URL`: either our own URL form
// `mssql://user:pass@host:port/db?encrypt=…&trustServerCertificate=…` (node-mssql dropped URIs, so we
// parse it ourselves) or an ADO-style string `Server=host,port;Database=…;User Id=…;Password=…`.
// Nothing here ever puts the password (or the raw input, which may hold it) into a message.
import type { config as MssqlConfig } from 'mssql';

export class ConnectionStringError extends Error {
  override readonly name = 'ConnectionStringError';
}

/** What we understood from the input, before it becomes a driver config. */
export interface MssqlTarget {
  server: string;
  port: number | null;
  instanceName: string | null;
  database: string | null;
  user: string | null;
  password: string | null;
  domain: string | null;
  encrypt: boolean;
  trustServerCertificate: boolean;
  /** ms */
  connectTimeoutMs: number | null;
  appName: string | null;
}

const DEFAULTS = { encrypt: true, trustServerCertificate: false } as const;

/** Whether `url` names a SQL Server database (URL or ADO form). */
export function isMssqlUrl(url: string): boolean {
  const s = url.trim();
  if (/^(mssql|sqlserver):\/\//i.test(s)) return true;
  return /(^|;)\s*(server|data source|address|addr|network address)\s*=/i.test(s);
}

/** Parse either form; throws ConnectionStringError with a message that never quotes the input. */
export function parseMssqlUrl(input: string): MssqlTarget {
  const s = input.trim();
  if (!s) throw new ConnectionStringError('SQL Server connection string is empty');
  if (/^(mssql|sqlserver):/i.test(s)) return parseUrlForm(s);
  return parseAdoForm(s);
}

function bool(key: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', 'yes', '1', 'strict', 'mandatory'].includes(v)) return true;
  if (['false', 'no', '0', 'optional'].includes(v)) return false;
  throw new ConnectionStringError(`SQL Server connection string: ${key} must be true or false`);
}

function positiveInt(key: string, value: string, max: number): number {
  const v = value.trim();
  if (!/^\d{1,9}$/.test(v) || Number(v) < 1 || Number(v) > max) {
    throw new ConnectionStringError(`SQL Server connection string: ${key} must be an integer from 1 to ${max}`);
  }
  return Number(v);
}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ConnectionStringError(`SQL Server URL: the ${what} has a malformed %-escape`);
  }
}

function parseUrlForm(s: string): MssqlTarget {
  const m = /^(?:mssql|sqlserver):\/\/([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/i.exec(s);
  if (!m) throw new ConnectionStringError('SQL Server URL is malformed; expected mssql://user:password@host:port/database?encrypt=true');
  const [, authority = '', path = '', query = ''] = m;
  if (path.includes('@') || query.includes('@')) {
    // most likely a password with a raw / ? or # in it: never guess, never echo
    throw new ConnectionStringError(
      'SQL Server URL: unexpected @ after the host; percent-encode special characters in the user name and password (e.g. / as %2F)',
    );
  }
  const at = authority.lastIndexOf('@');
  const auth = at < 0 ? undefined : authority.slice(0, at);
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  let user: string | null = null;
  let password: string | null = null;
  if (auth !== undefined && auth !== '') {
    const colon = auth.indexOf(':');
    user = decode(colon < 0 ? auth : auth.slice(0, colon), 'user name');
    password = colon < 0 ? null : decode(auth.slice(colon + 1), 'password');
  }
  let host = hostPort;
  let port: number | null = null;
  const hp = /^(\[[^\]]+\]|[^:]*)(?::(.*))?$/.exec(hostPort);
  if (hp) {
    host = hp[1] ?? '';
    if (hp[2] !== undefined) port = positiveInt('port', hp[2], 65535);
  }
  host = decode(host.replace(/^\[(.*)\]$/, '$1'), 'host');
  let instanceName: string | null = null;
  const slash = host.indexOf('\\');
  if (slash >= 0) {
    instanceName = host.slice(slash + 1) || null;
    host = host.slice(0, slash);
  }
  if (!host) throw new ConnectionStringError('SQL Server URL has no host');
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((p) => decode(p, 'database name'));
  if (segments.length > 1) throw new ConnectionStringError('SQL Server URL path must be just the database name');

  const t: MssqlTarget = {
    server: host,
    port,
    instanceName,
    database: segments[0] ?? null,
    user: user || null,
    password,
    domain: null,
    ...DEFAULTS,
    connectTimeoutMs: null,
    appName: null,
  };
  for (const pair of query.split('&').filter(Boolean)) {
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq), 'option name');
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1).replace(/\+/g, ' '), `value of ${key}`);
    switch (key.toLowerCase()) {
      case 'encrypt':
        t.encrypt = bool(key, value);
        break;
      case 'trustservercertificate':
        t.trustServerCertificate = bool(key, value);
        break;
      case 'instancename':
        t.instanceName = value || null;
        break;
      case 'domain':
        t.domain = value || null;
        break;
      case 'connecttimeout':
      case 'connectiontimeout':
        t.connectTimeoutMs = positiveInt(key, value, 600_000);
        break;
      case 'appname':
      case 'applicationname':
        t.appName = value || null;
        break;
      default:
        throw new ConnectionStringError(`SQL Server URL: unknown option ${JSON.stringify(key.slice(0, 40))}`);
    }
  }
  if (t.port !== null && t.instanceName !== null) {
    throw new ConnectionStringError('SQL Server URL: give either a port or an instance name, not both');
  }
  return t;
}

/** Split an ADO connection string into key/value pairs: `;`-separated, values optionally quoted. */
export function splitAdo(s: string): [string, string][] {
  const out: [string, string][] = [];
  let i = 0;
  while (i < s.length) {
    while (i < s.length && (s[i] === ';' || /\s/.test(s[i]!))) i++;
    if (i >= s.length) break;
    const eq = s.indexOf('=', i);
    if (eq < 0) throw new ConnectionStringError('SQL Server connection string: expected key=value pairs separated by ;');
    const key = s.slice(i, eq).trim().replace(/\s+/g, ' ');
    if (!key) throw new ConnectionStringError('SQL Server connection string: a pair has no key');
    i = eq + 1;
    while (i < s.length && s[i] === ' ') i++;
    let value = '';
    const q = s[i];
    if (q === '"' || q === "'" || q === '{') {
      const close = q === '{' ? '}' : q;
      i++;
      for (;;) {
        if (i >= s.length) throw new ConnectionStringError(`SQL Server connection string: unterminated quoted value for ${key}`);
        const c = s[i]!;
        if (c === close) {
          if (s[i + 1] === close) {
            value += close;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += c;
        i++;
      }
      while (i < s.length && s[i] === ' ') i++;
      if (i < s.length && s[i] !== ';')
        throw new ConnectionStringError(`SQL Server connection string: unexpected text after the quoted value of ${key}`);
    } else {
      const semi = s.indexOf(';', i);
      value = (semi < 0 ? s.slice(i) : s.slice(i, semi)).trim();
      i = semi < 0 ? s.length : semi;
    }
    out.push([key, value]);
  }
  return out;
}

function parseAdoForm(s: string): MssqlTarget {
  const t: MssqlTarget = {
    server: '',
    port: null,
    instanceName: null,
    database: null,
    user: null,
    password: null,
    domain: null,
    ...DEFAULTS,
    connectTimeoutMs: null,
    appName: null,
  };
  for (const [key, value] of splitAdo(s)) {
    switch (key.toLowerCase()) {
      case 'server':
      case 'data source':
      case 'address':
      case 'addr':
      case 'network address': {
        let v = value.replace(/^tcp:/i, '');
        const comma = v.lastIndexOf(',');
        if (comma >= 0) {
          t.port = positiveInt('port', v.slice(comma + 1), 65535);
          v = v.slice(0, comma);
        }
        const slash = v.indexOf('\\');
        if (slash >= 0) {
          t.instanceName = v.slice(slash + 1) || null;
          v = v.slice(0, slash);
        }
        t.server = v.trim() === '.' || v.trim().toLowerCase() === '(local)' ? 'localhost' : v.trim();
        break;
      }
      case 'port':
        t.port = positiveInt('port', value, 65535);
        break;
      case 'database':
      case 'initial catalog':
        t.database = value || null;
        break;
      case 'user id':
      case 'uid':
      case 'user':
      case 'username':
        t.user = value || null;
        break;
      case 'password':
      case 'pwd':
        t.password = value;
        break;
      case 'domain':
        t.domain = value || null;
        break;
      case 'encrypt':
        t.encrypt = bool(key, value);
        break;
      case 'trustservercertificate':
      case 'trust server certificate':
        t.trustServerCertificate = bool(key, value);
        break;
      case 'connect timeout':
      case 'connection timeout':
      case 'timeout':
        t.connectTimeoutMs = positiveInt(key, value, 600) * 1000;
        break;
      case 'application name':
      case 'app':
        t.appName = value || null;
        break;
      case 'instancename':
      case 'instance name':
        t.instanceName = value || null;
        break;
      case 'persist security info':
      case 'pooling':
      case 'multipleactiveresultsets':
      case 'max pool size':
      case 'min pool size':
        break; // meaningful to other drivers; readpast manages its own pools
      case 'integrated security':
      case 'trusted_connection':
        if (value && bool(key, value))
          throw new ConnectionStringError('SQL Server connection string: integrated security is not supported; use User Id and Password');
        break;
      default:
        throw new ConnectionStringError(`SQL Server connection string: unknown key ${JSON.stringify(key.slice(0, 40))}`);
    }
  }
  if (!t.server) throw new ConnectionStringError('SQL Server connection string has no Server');
  if (t.port !== null && t.instanceName !== null) {
    throw new ConnectionStringError('SQL Server connection string: give either a port or an instance name, not both');
  }
  return t;
}

/** A printable form with no secret, e.g. `mssql://app@db.example:1433/readpast?encrypt=true`. */
export function describeTarget(t: MssqlTarget): string {
  const user = t.user ? `${encodeURIComponent(t.user)}@` : '';
  const host = t.server.includes(':') ? `[${t.server}]` : t.server;
  const where = t.instanceName ? `${host}\\${t.instanceName}` : t.port ? `${host}:${t.port}` : host;
  const db = t.database ? `/${encodeURIComponent(t.database)}` : '';
  const q = `encrypt=${t.encrypt}&trustServerCertificate=${t.trustServerCertificate}`;
  return `mssql://${user}${where}${db}?${q}`;
}

/** Parse and describe in one go (the store's `description`). */
export function describe(input: string): string {
  return describeTarget(parseMssqlUrl(input));
}

export interface ConfigOptions {
  /** the connection's application name (shows as program_name in sys.dm_exec_sessions) */
  appName?: string;
  pool?: { min: number; max: number };
  /** ms; 0 = none */
  requestTimeout?: number;
}

/** Turn a target into a node-mssql config. */
export function toConfig(t: MssqlTarget, opts: ConfigOptions = {}): MssqlConfig {
  const appName = (opts.appName ?? t.appName ?? 'readpast').slice(0, 128);
  return {
    server: t.server,
    ...(t.port !== null ? { port: t.port } : {}),
    ...(t.database !== null ? { database: t.database } : {}),
    ...(t.user !== null ? { user: t.user } : {}),
    ...(t.password !== null ? { password: t.password } : {}),
    ...(t.domain !== null ? { domain: t.domain } : {}),
    ...(t.connectTimeoutMs !== null ? { connectionTimeout: t.connectTimeoutMs } : {}),
    requestTimeout: opts.requestTimeout ?? 30_000,
    options: {
      encrypt: t.encrypt,
      trustServerCertificate: t.trustServerCertificate,
      appName,
      useUTC: true,
      ...(t.instanceName !== null ? { instanceName: t.instanceName } : {}),
    },
    pool: { min: opts.pool?.min ?? 0, max: opts.pool?.max ?? 10, idleTimeoutMillis: 30_000 },
  };
}
