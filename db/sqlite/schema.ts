// SQLite schema, as numbered migrations, one per file in versions/. Each runs once, inside BEGIN IMMEDIATE,
// recorded in SchemaVersion. Times are integer milliseconds since the epoch (UTC).
//
// Frozen. A migration holds its DDL and data moves as literal text and, once released, never changes:
// frozen-migrations.test.ts pins each one's text by hash, and a fix is a new migration. Views and triggers
// are code objects: migrations made them as they were then, and the code-object step (code-objects.ts)
// installs today's definitions after the migrations.
import { migration as v1 } from './versions/v01-core-tables';
import { migration as v2 } from './versions/v02-execution-status';
import { migration as v3 } from './versions/v03-running-by-queue';
import { migration as v4 } from './versions/v04-schedules';
import { migration as v5 } from './versions/v05-audit';
import { migration as v6 } from './versions/v06-history';
import { migration as v7 } from './versions/v07-attempt-logs';
import { migration as v8 } from './versions/v08-alerts';
import { migration as v9 } from './versions/v09-browser';
import { migration as v10 } from './versions/v10-fingerprints';
import { migration as v11 } from './versions/v11-pool-settings';
import { migration as v12 } from './versions/v12-worker-queues';
import { migration as v13 } from './versions/v13-abandon-reason';
import { migration as v14 } from './versions/v14-flow-control';
import { migration as v15 } from './versions/v15-workflows';
import { migration as v16 } from './versions/v16-claimed';
import { migration as v17 } from './versions/v17-tasks-flow-index';
import { migration as v18 } from './versions/v18-trace-context';
import { migration as v19 } from './versions/v19-durable';
import { migration as v20 } from './versions/v20-intake';

import type { SqliteMigration } from './versions/migration';

export type { SqliteMigration };

export const MIGRATIONS: readonly SqliteMigration[] = [
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
];
