// SQL Server migration 16: the T-SQL callers' procedures installed again (CREATE OR ALTER, the list of
// migration 6). readpast.ExecAsync counts @Payload in UTF-8 bytes, as the library does (it counted UTF-16
// characters: a 256 KiB bound let 768 KiB of UTF-8 through), and its enqueue (ENQUEUE_WRITE, shared with
// the store) takes an application lock per dedup key, so that a second ExecAsync of a key being enqueued
// waits and returns the first one's token instead of failing on the unique index and rolling back its
// caller's transaction. The view and the role's grants come with them (each idempotent), so that running
// this migration again (what `readpast doctor` advises when a procedure or grant is missing or differs)
// restores the whole interface.
import type { Migration } from './migration';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, createProcedure, roleBatches } from '../sql/callers';

export const migration: Migration = {
  version: 16,
  name: 'callers: payload in UTF-8 bytes, dedup under an application lock',
  batches: [...CALLER_PROCEDURES.map(createProcedure), ASYNC_EXEC_RESULTS_VIEW, ...roleBatches()],
};
