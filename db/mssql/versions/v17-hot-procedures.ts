// SQL Server migration 17: the store's hot writes as installed procedures (sql/hot.ts) —
// readpast.Enqueue_v17, Claim_v17, Finish_v17 and Heartbeat_v17 — which the store calls by name instead
// of sending their 35–60 KB of T-SQL with every call; and readpast.ExecAsync installed again, now calling
// Enqueue_v17 instead of holding its own copy of the enqueue statement (the list of migration 6).
// A body changed later is installed under the next migration's number (a new name): see sql/hot.ts.
import type { Migration } from './migration';
import { CALLER_PROCEDURES, createProcedure } from '../sql/callers';
import { createHotProcedure, HOT_PROCEDURES } from '../sql/hot';

export const migration: Migration = {
  version: 17,
  name: 'hot writes as installed procedures',
  batches: [...HOT_PROCEDURES.filter((p) => p.version === 17).map(createHotProcedure), ...CALLER_PROCEDURES.map(createProcedure)],
};
