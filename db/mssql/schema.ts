// The SQL Server schema `readpast`, as numbered migrations, one per file in versions/. Same tables and
// column names as the SQLite store. Times are datetime2(3) in UTC, written with the server's clock
// (SYSUTCDATETIME), so every process and machine agrees on leases and due times.
//
// Each migration is a list of batches run in one transaction on one connection, under a session-owned
// application lock (see migrations.ts). Every statement is also guarded on its own (IF OBJECT_ID … IS NULL,
// IF COL_LENGTH … IS NULL), so a re-run is harmless.
//
// Frozen. A migration holds its DDL and data moves as literal text and, once released, never changes:
// frozen-migrations.test.ts pins each one's text by hash, and a fix is a new migration. Procedures, views
// and their grants are not in migrations: they are code objects, installed by content after the
// migrations (code-objects.ts), so a migration never carries today's statement text.
import { migration as v1 } from './versions/v01-core-tables';
import { migration as v2 } from './versions/v02-sharded-counts';
import { migration as v3 } from './versions/v03-claim-seeks';
import { migration as v4 } from './versions/v04-schedules';
import { migration as v5 } from './versions/v05-binary-names';
import { migration as v6 } from './versions/v06-callers-settings';
import { migration as v7 } from './versions/v07-audit';
import { migration as v8 } from './versions/v08-history';
import { migration as v9 } from './versions/v09-attempt-logs';
import { migration as v10 } from './versions/v10-alerts';
import { migration as v11 } from './versions/v11-browser';
import { migration as v12 } from './versions/v12-fingerprints';
import { migration as v13 } from './versions/v13-pool-settings';
import { migration as v14 } from './versions/v14-worker-queues';
import { migration as v15 } from './versions/v15-abandon-reason';
import { migration as v16 } from './versions/v16-callers-utf8-dedup';
import { migration as v17 } from './versions/v17-hot-procedures';
import { migration as v18 } from './versions/v18-time-ordered-tokens';
import { migration as v19 } from './versions/v19-flow-control';
import { migration as v20 } from './versions/v20-workflows';
import { migration as v21 } from './versions/v21-code-catalog';
import { migration as v22 } from './versions/v22-trace-context';
import { migration as v23 } from './versions/v23-durable';

import type { Migration } from './versions/migration';

export type { Migration };

/**
 * The collation of queue names, dedup keys and handler names: binary (code point by code point), as
 * SQLite compares TEXT, whatever the database's default collation (migration 5).
 */
export const NAME_COLLATION = 'Latin1_General_100_BIN2';

export const MIGRATIONS: readonly Migration[] = [
  v1,
  v2,
  v3,
  v4,
  v5,
  v6,
  v7,
  v8,
  v9,
  v10,
  v11,
  v12,
  v13,
  v14,
  v15,
  v16,
  v17,
  v18,
  v19,
  v20,
  v21,
  v22,
  v23,
];

/** The newest migration this code has (the schema version it is written against). */
export const SCHEMA_HEAD = Math.max(...MIGRATIONS.map((m) => m.version));
