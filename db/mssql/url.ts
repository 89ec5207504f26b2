// Connection settings for SQL Server from `READPAST_DATABASE_URL`: either our own URL form
// `mssql://user:pass@host:port/db?encrypt=…&trustServerCertificate=…` (node-mssql dropped URIs, so we
// parse it ourselves) or an ADO-style string `Server=host,port;Database=…;User Id=…;Password=…`.
// Nothing here ever puts the password (or the raw input, which may hold it) into a message.
//
// Signing in (`Authentication=` as Microsoft.Data.SqlClient spells it; `authentication=` in the URL form,
// spaces optional): a SQL login (the default, `Sql Password`); Windows accounts by NTLM (`User Id=DOMAIN\user`
// or `Domain=`, with the account's password: Node has no SSPI, so `Integrated Security` is refused); and
// Microsoft Entra ID through tedious's `azure-active-directory-*` types (@azure/identity, a dependency of
// tedious): `Active Directory Default`, `Managed Identity` (User Id = a user-assigned identity's client
// id), `Service Principal` (User Id = client id, Password = secret, Tenant Id), `Password` (Client Id of
// the app registration), `Access Token` (a token callback given to the library, asked per connection).
import type { config as MssqlConfig } from 'mssql';

export class ConnectionStringError extends Error {
  override readonly name = 'ConnectionStringError';
}

/** How the connection signs in. */
export type MssqlAuthentication =
  | 'sql'
  | 'ntlm'
  | 'entra-default'
  | 'entra-managed-identity'
  | 'entra-service-principal'
  | 'entra-password'
  | 'entra-access-token';

/** `Authentication=` values (lower case, spaces removed) → mode; SqlClient's names, and MSI as it allows. */
const AUTHENTICATIONS: Record<string, MssqlAuthentication> = {
  sqlpassword: 'sql',
  activedirectorydefault: 'entra-default',
  activedirectorymanagedidentity: 'entra-managed-identity',
  activedirectorymsi: 'entra-managed-identity',
  activedirectoryserviceprincipal: 'entra-service-principal',
  activedirectorypassword: 'entra-password',
  activedirectoryaccesstoken: 'entra-access-token',
};

/** The name `describe` prints and both forms read back. */
export const AUTHENTICATION_NAMES: Record<MssqlAuthentication, string> = {
  sql: 'SqlPassword',
  ntlm: 'NTLM',
  'entra-default': 'ActiveDirectoryDefault',
  'entra-managed-identity': 'ActiveDirectoryManagedIdentity',
  'entra-service-principal': 'ActiveDirectoryServicePrincipal',
  'entra-password': 'ActiveDirectoryPassword',
  'entra-access-token': 'ActiveDirectoryAccessToken',
};

/** What works on Node instead of Windows integrated security. */
const ON_NODE =
  'on Node, sign in to a domain account by NTLM with User Id=DOMAIN\\user and its Password, or with Microsoft Entra ID ' +
  '(Authentication=Active Directory Default, Managed Identity or Service Principal)';

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
  authentication: MssqlAuthentication;
  /** Entra ID: the directory (tenant) id (service principal, password) */
  tenantId: string | null;
  /** Entra ID: the app registration's client id (password) */
  clientId: string | null;
}

const DEFAULTS = {
  encrypt: true,
  trustServerCertificate: false,
  connectTimeoutMs: null,
  appName: null,
  authentication: 'sql',
  tenantId: null,
  clientId: null,
} as const;

/** What a form read before the sign-in is settled (settleAuthentication). */
interface Raw {
  authentication: string | null;
}

function authenticationOf(where: string, value: string): MssqlAuthentication | 'refused' {
  const v = value.toLowerCase().replace(/[\s_-]+/g, '');
  if (v === 'ntlm') return 'ntlm';
  const mode = AUTHENTICATIONS[v];
  if (mode) return mode;
  if (['activedirectoryintegrated', 'activedirectoryinteractive', 'activedirectorydevicecodeflow'].includes(v)) return 'refused';
  if (v === 'activedirectoryworkloadidentity') {
    throw new ConnectionStringError(
      `${where}: Authentication=Active Directory Workload Identity is not a mode of its own here; use Active Directory Default, ` +
        'which signs in with the workload identity the environment provides',
    );
  }
  throw new ConnectionStringError(
    `${where}: Authentication must be Sql Password, Active Directory Default, Active Directory Managed Identity, ` +
      'Active Directory Service Principal, Active Directory Password or Active Directory Access Token',
  );
}

/**
 * The sign-in from what was read: `DOMAIN\user` (or a Domain) is NTLM; an Entra ID mode takes what it
 * needs from User Id / Password / Tenant Id / Client Id, and says which one is missing.
 */
function settleAuthentication(t: MssqlTarget, raw: Raw, where: string): MssqlTarget {
  let mode: MssqlAuthentication = 'sql';
  if (raw.authentication !== null && raw.authentication.trim() !== '') {
    const m = authenticationOf(where, raw.authentication);
    if (m === 'refused') {
      throw new ConnectionStringError(`${where}: Authentication=${raw.authentication.slice(0, 40)} is not supported; ${ON_NODE}`);
    }
    mode = m;
  }
  const slash = t.user?.indexOf('\\') ?? -1;
  if (t.user !== null && slash >= 0) {
    if (mode !== 'sql' && mode !== 'ntlm') {
      throw new ConnectionStringError(
        `${where}: a User Id of the form DOMAIN\\user is a Windows account (NTLM), not a Microsoft Entra ID one`,
      );
    }
    const domain = t.user.slice(0, slash);
    const user = t.user.slice(slash + 1);
    if (!domain || !user) throw new ConnectionStringError(`${where}: User Id must be DOMAIN\\user for a Windows account`);
    if (t.domain !== null && t.domain.toLowerCase() !== domain.toLowerCase()) {
      throw new ConnectionStringError(`${where}: the domain of User Id and Domain differ`);
    }
    t.domain = domain;
    t.user = user;
    mode = 'ntlm';
  } else if (t.domain !== null) {
    if (mode !== 'sql' && mode !== 'ntlm')
      throw new ConnectionStringError(`${where}: Domain is for Windows accounts (NTLM), not Microsoft Entra ID`);
    mode = 'ntlm';
  }
  const need = (ok: boolean, what: string) => {
    if (!ok) throw new ConnectionStringError(`${where}: Authentication=${AUTHENTICATION_NAMES[mode]} needs ${what}`);
  };
  const no = (ok: boolean, what: string) => {
    if (!ok) throw new ConnectionStringError(`${where}: Authentication=${AUTHENTICATION_NAMES[mode]} takes no ${what}`);
  };
  switch (mode) {
    case 'ntlm':
      need(t.domain !== null, 'a domain (User Id=DOMAIN\\user)');
      need(t.user !== null && t.password !== null, `a User Id and its Password (${ON_NODE.replace(/^on Node, /, '')})`);
      break;
    case 'entra-default':
    case 'entra-managed-identity':
      // User Id, when given, is the client id of a user-assigned managed identity
      no(t.password === null, 'Password (User Id, when given, is the client id of a user-assigned managed identity)');
      break;
    case 'entra-service-principal':
      need(t.user !== null, "a User Id (the app registration's client id)");
      need(t.password !== null && t.password !== '', 'a Password (the client secret)');
      need(t.tenantId !== null, 'a Tenant Id (the directory id)');
      break;
    case 'entra-password':
      need(t.user !== null && t.password !== null, 'a User Id and Password of the Entra ID user');
      need(t.clientId !== null, "a Client Id (the client id of this application's app registration)");
      break;
    case 'entra-access-token':
      no(t.password === null, 'Password (the token comes from the callback given to openReadpast)');
      break;
    case 'sql':
      break;
  }
  t.authentication = mode;
  return t;
}

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
  };
  const raw: Raw = { authentication: null };
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
      case 'authentication':
        raw.authentication = value;
        break;
      case 'tenantid':
        t.tenantId = value || null;
        break;
      case 'clientid':
        t.clientId = value || null;
        break;
      case 'integratedsecurity':
      case 'trustedconnection':
        if (value && bool(key, value)) throw new ConnectionStringError(`SQL Server URL: integrated security is not supported; ${ON_NODE}`);
        break;
      default:
        throw new ConnectionStringError(`SQL Server URL: unknown option ${JSON.stringify(key.slice(0, 40))}`);
    }
  }
  if (t.port !== null && t.instanceName !== null) {
    throw new ConnectionStringError('SQL Server URL: give either a port or an instance name, not both');
  }
  return settleAuthentication(t, raw, 'SQL Server URL');
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
  };
  const raw: Raw = { authentication: null };
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
      case 'authentication':
        raw.authentication = value;
        break;
      case 'tenant id':
      case 'tenantid':
        t.tenantId = value || null;
        break;
      case 'client id':
      case 'clientid':
        t.clientId = value || null;
        break;
      case 'integrated security':
      case 'trusted_connection':
        if (value && (/^sspi$/i.test(value.trim()) || bool(key, value)))
          throw new ConnectionStringError(`SQL Server connection string: integrated security is not supported; ${ON_NODE}`);
        break;
      default:
        throw new ConnectionStringError(`SQL Server connection string: unknown key ${JSON.stringify(key.slice(0, 40))}`);
    }
  }
  if (!t.server) throw new ConnectionStringError('SQL Server connection string has no Server');
  if (t.port !== null && t.instanceName !== null) {
    throw new ConnectionStringError('SQL Server connection string: give either a port or an instance name, not both');
  }
  return settleAuthentication(t, raw, 'SQL Server connection string');
}

/** A printable form with no secret, e.g. `mssql://app@db.example:1433/readpast?encrypt=true`. */
export function describeTarget(t: MssqlTarget): string {
  const who = t.authentication === 'ntlm' && t.domain ? `${t.domain}\\${t.user ?? ''}` : t.user;
  const user = who ? `${encodeURIComponent(who)}@` : '';
  const host = t.server.includes(':') ? `[${t.server}]` : t.server;
  const where = t.instanceName ? `${host}\\${t.instanceName}` : t.port ? `${host}:${t.port}` : host;
  const db = t.database ? `/${encodeURIComponent(t.database)}` : '';
  const auth = t.authentication === 'sql' || t.authentication === 'ntlm' ? '' : `&authentication=${AUTHENTICATION_NAMES[t.authentication]}`;
  const q = `encrypt=${t.encrypt}&trustServerCertificate=${t.trustServerCertificate}${auth}`;
  return `mssql://${user}${where}${db}?${q}`;
}

/** How this target signs in, for a person (the doctor); never a secret. */
export function signInLabel(t: MssqlTarget): string {
  switch (t.authentication) {
    case 'sql':
      return 'SQL Server authentication';
    case 'ntlm':
      return `Windows authentication (NTLM) as ${t.domain ?? ''}\\${t.user ?? ''}`;
    case 'entra-default':
      return `Microsoft Entra ID (Active Directory Default${t.user ? `, managed identity client id ${t.user}` : ''})`;
    case 'entra-managed-identity':
      return `Microsoft Entra ID (Active Directory Managed Identity, ${t.user ? `user-assigned, client id ${t.user}` : 'system-assigned'})`;
    case 'entra-service-principal':
      return `Microsoft Entra ID (Active Directory Service Principal, client id ${t.user ?? ''})`;
    case 'entra-password':
      return `Microsoft Entra ID (Active Directory Password, user ${t.user ?? ''})`;
    case 'entra-access-token':
      return 'Microsoft Entra ID (Active Directory Access Token from the token callback)';
  }
}

/** Whether the target signs in with Microsoft Entra ID. */
export const isEntra = (t: MssqlTarget): boolean => t.authentication.startsWith('entra-');

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

/** tedious's `authentication` for a target (undefined: a SQL login, from user and password). */
export function driverAuthentication(t: MssqlTarget): MssqlConfig['authentication'] | undefined {
  const opt = <T extends Record<string, string | null>>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)) as Record<string, string>;
  switch (t.authentication) {
    case 'sql':
      return undefined;
    case 'ntlm':
      return { type: 'ntlm', options: { domain: t.domain ?? '', userName: t.user ?? '', password: t.password ?? '' } };
    case 'entra-default':
      return { type: 'azure-active-directory-default', options: opt({ clientId: t.user }) };
    case 'entra-managed-identity':
      // ManagedIdentityCredential of @azure/identity: VMs, App Service, Functions, containers alike
      return { type: 'azure-active-directory-msi-vm', options: opt({ clientId: t.user }) };
    case 'entra-service-principal':
      return {
        type: 'azure-active-directory-service-principal-secret',
        options: { clientId: t.user ?? '', clientSecret: t.password ?? '', tenantId: t.tenantId ?? '' },
      };
    case 'entra-password':
      return {
        type: 'azure-active-directory-password',
        // tenant: tedious asks the 'common' endpoint when none is given
        options: opt({ userName: t.user, password: t.password, clientId: t.clientId, tenantId: t.tenantId }) as {
          userName: string;
          password: string;
          clientId: string;
          tenantId: string;
        },
      };
    case 'entra-access-token':
      // the token itself is asked of the callback before each new connection (connection.ts, Driver)
      return { type: 'azure-active-directory-access-token', options: { token: '' } };
  }
}

/** Turn a target into a node-mssql config. */
export function toConfig(t: MssqlTarget, opts: ConfigOptions = {}): MssqlConfig {
  const appName = (opts.appName ?? t.appName ?? 'readpast').slice(0, 128);
  const authentication = driverAuthentication(t);
  return {
    server: t.server,
    ...(t.port !== null ? { port: t.port } : {}),
    ...(t.database !== null ? { database: t.database } : {}),
    ...(authentication
      ? { authentication }
      : { ...(t.user !== null ? { user: t.user } : {}), ...(t.password !== null ? { password: t.password } : {}) }),
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
