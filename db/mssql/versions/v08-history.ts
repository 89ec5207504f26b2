// SQL Server migration 8: per-minute history.
import type { Migration } from '../schema';

export const migration: Migration = {
  version: 8,
  name: 'per-minute history',
  batches: [],
};
