// SQL Server migration 10: alert rules and firings.
import type { Migration } from '../schema';

export const migration: Migration = {
  version: 10,
  name: 'alert rules and firings',
  batches: [],
};
