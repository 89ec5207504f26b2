// What server this is, asked once in one round trip (sql/server.ts), and what readpast makes of it:
// whether it may run here at all (a stand-in such as Babelfish is refused before anything else, then
// too old a version, then too low a compatibility level), and how to name it. `migrate` and `doctor`
// both read it, and a store asks it on its first server error (connection.ts: a one-shot command that
// does not migrate is refused like the others); the judgement is pure, so it is tested without a server.
import type { ConnectionPool } from 'mssql';
import { SERVER_PROBE } from './sql/server';

/** SERVERPROPERTY('EngineEdition') values readpast tells apart. */
export const ENGINE_EDITION = {
  azureSqlDatabase: 5,
  synapseDedicated: 6,
  managedInstance: 8,
  sqlEdge: 9,
  arcManagedInstance: 10,
  synapseServerless: 11,
} as const;

/** SQL Server 2016 SP1: CREATE OR ALTER (and the rest readpast's T-SQL uses) is there from this build on. */
export const MIN_VERSION: readonly number[] = [13, 0, 4001];
export const MIN_VERSION_NAME = 'SQL Server 2016 SP1 (13.0.4001)';
/** OPENJSON, DATEDIFF_BIG and the rest of readpast's T-SQL need a database at 130 or higher. */
export const MIN_COMPATIBILITY = 130;

export interface ServerInfo {
  /** a Babelfish for PostgreSQL (or Aurora) server imitating SQL Server */
  babelfish: boolean;
  babelfishVersion: string | null;
  /** the first line of @@VERSION */
  versionText: string;
  database: string | null;
  /** SERVERPROPERTY('ProductVersion'), e.g. 15.0.4345.5 */
  productVersion: string | null;
  /** its numbers */
  version: readonly number[] | null;
  /** RTM, SP1, … */
  productLevel: string | null;
  /** CU21, … */
  productUpdateLevel: string | null;
  /** e.g. Enterprise Edition (64-bit) */
  edition: string | null;
  /** SERVERPROPERTY('EngineEdition'): see ENGINE_EDITION */
  engineEdition: number | null;
  compatibilityLevel: number | null;
  readCommittedSnapshot: boolean | null;
  /** ALLOW_SNAPSHOT_ISOLATION on (or turning on/off) */
  snapshotIsolation: boolean | null;
}

/** The probe's row as the driver returns it. */
export interface ServerRow {
  babelfish: number | boolean | null;
  babelfish_version?: string | null;
  version_text?: string | null;
  database_name?: string | null;
  product_version?: string | null;
  product_level?: string | null;
  product_update_level?: string | null;
  edition?: string | null;
  engine_edition?: number | null;
  compatibility_level?: number | null;
  is_read_committed_snapshot_on?: boolean | number | null;
  snapshot_isolation_state?: number | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function parseVersion(text: string | null): number[] | null {
  if (!text || !/^\d+(\.\d+)*$/.test(text)) return null;
  return text.split('.').map(Number);
}

/** Compare dotted versions part by part (missing parts count as 0). */
export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function serverInfoFromRow(row: ServerRow): ServerInfo {
  const productVersion = str(row.product_version);
  const rcsi = row.is_read_committed_snapshot_on;
  const snapshot = int(row.snapshot_isolation_state);
  return {
    babelfish: row.babelfish === 1 || row.babelfish === true,
    babelfishVersion: str(row.babelfish_version),
    versionText: (str(row.version_text) ?? '').split(/\r?\n/)[0]!.trim(),
    database: str(row.database_name),
    productVersion,
    version: parseVersion(productVersion),
    productLevel: str(row.product_level),
    productUpdateLevel: str(row.product_update_level),
    edition: str(row.edition),
    engineEdition: int(row.engine_edition),
    compatibilityLevel: int(row.compatibility_level),
    readCommittedSnapshot: rcsi === null || rcsi === undefined ? null : rcsi === true || rcsi === 1,
    snapshotIsolation: snapshot === null ? null : snapshot !== 0,
  };
}

/** Ask the server (one round trip). */
export async function probeServer(pool: ConnectionPool): Promise<ServerInfo> {
  // the pool's own request (connection.ts asks this on a store's first server error: no import back)
  const row = (await pool.request().query<ServerRow>(SERVER_PROBE)).recordset[0];
  if (!row) throw new Error('the server probe returned no row');
  return serverInfoFromRow(row);
}

/** Azure SQL Database and Managed Instance report 12.0.x whatever they run: their version is not the point. */
export function isCloud(info: ServerInfo): boolean {
  const e = info.engineEdition;
  return e === ENGINE_EDITION.azureSqlDatabase || e === ENGINE_EDITION.managedInstance || e === ENGINE_EDITION.arcManagedInstance;
}

/** Azure SQL Database proper: database-scoped permissions (VIEW DATABASE STATE, KILL DATABASE CONNECTION). */
export function isAzureSqlDatabase(info: ServerInfo): boolean {
  return info.engineEdition === ENGINE_EDITION.azureSqlDatabase;
}

const RELEASES: Record<number, string> = { 10: '2008', 11: '2012', 12: '2014', 13: '2016', 14: '2017', 15: '2019', 16: '2022', 17: '2025' };

/** e.g. `SQL Server 2019 CU21 (15.0.4345.5), Enterprise Edition (64-bit)`, `Azure SQL Database (12.0.2000.8)` */
export function productName(info: ServerInfo): string {
  if (info.babelfish) return `Babelfish for PostgreSQL${info.babelfishVersion ? ` ${info.babelfishVersion}` : ''}`;
  const v = info.productVersion ? ` (${info.productVersion})` : '';
  switch (info.engineEdition) {
    case ENGINE_EDITION.azureSqlDatabase:
      return `Azure SQL Database${v}${info.edition ? `, ${info.edition}` : ''}`;
    case ENGINE_EDITION.managedInstance:
      return `Azure SQL Managed Instance${v}`;
    case ENGINE_EDITION.arcManagedInstance:
      return `Azure Arc SQL Managed Instance${v}`;
    case ENGINE_EDITION.synapseDedicated:
      return `Azure Synapse dedicated SQL pool${v}`;
    case ENGINE_EDITION.synapseServerless:
      return `Azure Synapse serverless SQL pool${v}`;
    case ENGINE_EDITION.sqlEdge:
      return `Azure SQL Edge${v}`;
  }
  const major = info.version?.[0];
  const minor = info.version?.[1] ?? 0;
  const release = major === 10 && minor >= 50 ? '2008 R2' : major !== undefined ? RELEASES[major] : undefined;
  const level = [info.productLevel, info.productUpdateLevel].filter((x) => x && x !== 'RTM').join(' ');
  const name = release ? `SQL Server ${release}${level ? ` ${level}` : ''}` : info.versionText || 'an unknown server';
  return `${name}${v}${info.edition ? `, ${info.edition}` : ''}`;
}

export const BABELFISH_REFUSAL =
  "is not SQL Server: it accepts READPAST and UPDLOCK but ignores them, so readpast's claims would neither skip rows " +
  'other workers hold nor keep them locked, and neither one claim per task nor a queue limit could be promised. readpast ' +
  'does not run on it: use SQL Server 2016 SP1 or later, Azure SQL Database or Managed Instance (or the embedded SQLite database)';

export interface Refusal {
  /** a stand-in (Babelfish), an engine without row locking hints, too old a version, too low a compatibility level */
  kind: 'stand-in' | 'engine' | 'version' | 'compatibility';
  message: string;
}

/**
 * Why readpast cannot run on this server, or null when it can. In order: a stand-in (Babelfish),
 * an engine without row locking hints (Synapse), a version before 2016 SP1, a compatibility level below 130.
 */
export function refusal(info: ServerInfo): Refusal | null {
  if (info.babelfish) {
    return { kind: 'stand-in', message: `this server (${productName(info)}, SERVERPROPERTY('Babelfish') = 1) ${BABELFISH_REFUSAL}` };
  }
  const e = info.engineEdition;
  if (e === ENGINE_EDITION.synapseDedicated || e === ENGINE_EDITION.synapseServerless) {
    return {
      kind: 'engine',
      message:
        `this server (${productName(info)}) has no READPAST or row locks for readpast's claims; ` +
        'use SQL Server, Azure SQL Database or Managed Instance',
    };
  }
  if (!isCloud(info) && info.version && compareVersions(info.version, MIN_VERSION) < 0) {
    return {
      kind: 'version',
      message:
        `readpast needs ${MIN_VERSION_NAME} or later (CREATE OR ALTER, among others); this server is ${productName(info)}: ` +
        'install the latest service pack and cumulative update',
    };
  }
  if (info.compatibilityLevel !== null && info.compatibilityLevel < MIN_COMPATIBILITY) {
    return {
      kind: 'compatibility',
      message:
        `readpast needs database compatibility level ${MIN_COMPATIBILITY} or higher (SQL Server 2016+, for OPENJSON); ` +
        `database ${info.database ?? '(current)'} is at ${info.compatibilityLevel}: ` +
        `ALTER DATABASE ${quoteName(info.database)} SET COMPATIBILITY_LEVEL = ${MIN_COMPATIBILITY};`,
    };
  }
  return null;
}

/** refusal()'s message, or null. */
export function unsupportedReason(info: ServerInfo): string | null {
  return refusal(info)?.message ?? null;
}

/** A refusal to run on this server (migrate, the worker's start, doctor, a store's first server error). */
export class UnsupportedServerError extends Error {
  override readonly name = 'UnsupportedServerError';
}

/** [name] as QUOTENAME writes it (for remedies printed to a person, never for SQL readpast sends). */
export function quoteName(name: string | null): string {
  return name === null ? 'CURRENT' : `[${name.replace(/]/g, ']]')}]`;
}
