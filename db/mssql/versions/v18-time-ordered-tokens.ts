// SQL Server migration 18: the T-SQL callers' procedures installed again (CREATE OR ALTER, the list of
// migration 6). readpast.ExecAsync makes its task's token as the store does (sql/tokens.ts: time in the
// group SQL Server compares first) instead of NEWID(), whose random keys split UX_Tasks_token's pages.
// The view and the role's grants come with them (each idempotent), as in migration 16, so that running this
// migration again (what `readpast doctor` advises when a procedure or grant is missing or differs) restores
// the whole interface.
import type { Migration } from './migration';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, createProcedure, roleBatches } from '../sql/callers';

export const migration: Migration = {
  version: 18,
  name: 'callers: time-ordered task tokens',
  batches: [...CALLER_PROCEDURES.map(createProcedure), ASYNC_EXEC_RESULTS_VIEW, ...roleBatches()],
};
