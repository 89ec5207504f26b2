// SQL Server migration 9: attempt progress and log lines.
import type { Migration } from '../schema';

export const migration: Migration = {
  version: 9,
  name: 'attempt progress and log lines',
  batches: [],
};
