// The dashboard server's settings, read from the environment once and validated.
// Shared by instrumentation, route handlers, server actions, the proxy and bin/start.mjs.
import { z } from 'zod';
import { MAX_DASHBOARD_WORKERS } from '@/lib/engine/limits';
import { parseWebhookAllow } from '@/lib/engine/webhook-guard';
import { loadOidcConfig, type OidcConfig } from './config-oidc';
import { isLoopbackHost } from './loopback';

export { isLoopbackHost };
export type { OidcConfig };

export const DEFAULT_DATABASE_URL = 'sqlite:data/readpast.db';

export interface Credentials {
  user: string;
  password: string;
}

export interface ServerConfig {
  databaseUrl: string;
  /** in-process pool size; 0 = dashboard only */
  workers: number;
  host: string;
  port: number;
  /** null: no authentication (only allowed on a loopback address) */
  auth: Credentials | null;
  /** read-only users (READPAST_VIEWERS=user:pass[,user:pass…]); only with `auth` */
  viewers: Credentials[];
  /** accept `sql` tasks from the web */
  allowSql: boolean;
  /** a module of user handlers to register, or null */
  handlersModule: string | null;
  /** READPAST_WEBHOOK_ALLOW as given (checked here): internal addresses alert webhooks may reach, or null */
  webhookAllow: string | null;
  /** sign-on with an OpenID Connect provider (READPAST_OIDC_*), or null */
  oidc: OidcConfig | null;
  /** READPAST_TRACE_URL: a trace's page in the tracing backend, `{traceId}` in it (the task page links there), or null */
  traceUrl: string | null;
}

import { ConfigError } from '../engine/errors';

export { ConfigError };

/** Unset and empty are the same thing for environment variables. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional());

const flag = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['0', '1', 'true', 'false', 'yes', 'no'].includes(v), 'must be 1 or 0')
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const WORKERS_RULE = `must be an integer from 0 to ${MAX_DASHBOARD_WORKERS}`;

const envSchema = z.object({
  READPAST_DATABASE_URL: optional(z.string().trim()),
  READPAST_WORKERS: optional(
    z.string().trim().regex(/^\d+$/, WORKERS_RULE).transform(Number).pipe(z.number().max(MAX_DASHBOARD_WORKERS, WORKERS_RULE)),
  ),
  READPAST_HOST: optional(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9.:\-[\]%]+$/, 'must be a host name or IP address'),
  ),
  PORT: optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, 'must be a port number')
      .transform(Number)
      .pipe(z.number().min(1, 'must be a port number').max(65535, 'must be a port number')),
  ),
  READPAST_AUTH: optional(
    z.string().regex(/^[^:\s]+:\S.*$/, 'must be user:password (a non-empty user without ":" and a non-empty password)'),
  ),
  READPAST_VIEWERS: optional(
    z
      .string()
      .regex(
        /^[^:\s,]+:[^\s,]+(,[^:\s,]+:[^\s,]+)*$/,
        'must be user:password[,user:password…] (users without ":" or ",", passwords without "," or spaces)',
      ),
  ),
  READPAST_ALLOW_SQL: optional(flag),
  READPAST_HANDLERS: optional(z.string().trim()),
  READPAST_WEBHOOK_ALLOW: optional(z.string().trim()),
  READPAST_TRACE_URL: optional(
    z
      .string()
      .trim()
      .regex(/^https?:\/\/\S*\{traceId\}\S*$/, 'must be an http(s) URL with {traceId} in it, e.g. https://tempo.example/trace/{traceId}'),
  ),
});

type Env = Record<string, string | undefined>;

/** Parse and validate; throws ConfigError naming the variable. */
export function loadServerConfig(env: Env = process.env): ServerConfig {
  const r = envSchema.safeParse(env);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new ConfigError(`${issue.path.join('.')}: ${issue.message}`);
  }
  const e = r.data;
  let auth: Credentials | null = null;
  if (e.READPAST_AUTH !== undefined) {
    const i = e.READPAST_AUTH.indexOf(':');
    auth = { user: e.READPAST_AUTH.slice(0, i), password: e.READPAST_AUTH.slice(i + 1) };
  }
  const viewers: Credentials[] = (e.READPAST_VIEWERS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf(':');
      return { user: pair.slice(0, i), password: pair.slice(i + 1) };
    });
  if (viewers.length && !auth) throw new ConfigError('READPAST_VIEWERS: needs READPAST_AUTH (the operator) to be set as well');
  if (auth && viewers.some((v) => v.user === auth.user || v.password === auth.password)) {
    throw new ConfigError("READPAST_VIEWERS: a viewer must have a user name and a password of its own, not the operator's");
  }
  try {
    parseWebhookAllow(e.READPAST_WEBHOOK_ALLOW);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const oidc = loadOidcConfig(env);
  return {
    databaseUrl: e.READPAST_DATABASE_URL ?? DEFAULT_DATABASE_URL,
    workers: e.READPAST_WORKERS ?? 4,
    host: e.READPAST_HOST ?? '127.0.0.1',
    port: e.PORT ?? 3000,
    auth,
    viewers,
    allowSql: e.READPAST_ALLOW_SQL ?? false,
    handlersModule: e.READPAST_HANDLERS ?? null,
    webhookAllow: e.READPAST_WEBHOOK_ALLOW ?? null,
    oidc,
    traceUrl: e.READPAST_TRACE_URL ?? null,
  };
}

/** Whether requests must prove who they are: a password (READPAST_AUTH) or sign-on (READPAST_OIDC_ISSUER) is configured. */
export function hasCredentials(cfg: Pick<ServerConfig, 'auth'> & Partial<Pick<ServerConfig, 'oidc'>>): boolean {
  return !!cfg.auth || !!cfg.oidc;
}

/** Why the server must not start with this configuration, or null when it may. */
export function bindRefusal(cfg: Pick<ServerConfig, 'host' | 'auth'> & Partial<Pick<ServerConfig, 'oidc'>>): string | null {
  if (isLoopbackHost(cfg.host) || hasCredentials(cfg)) return null;
  return (
    `refusing to listen on ${cfg.host} without credentials: the dashboard can enqueue, retry and delete tasks. ` +
    'Set READPAST_AUTH=user:password (dashboard login; the password is also the API bearer token), ' +
    'or sign-on with an OpenID Connect provider (READPAST_OIDC_ISSUER and the rest, see the README), ' +
    'or bind to loopback (READPAST_HOST=127.0.0.1).'
  );
}

const KEY = Symbol.for('readpast.server.config');
type Holder = { [KEY]?: ServerConfig };

/** The process's configuration, parsed once. */
export function serverConfig(): ServerConfig {
  const g = globalThis as Holder;
  return (g[KEY] ??= loadServerConfig());
}
