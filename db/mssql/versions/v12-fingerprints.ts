// SQL Server migration 12: failure fingerprints.
import type { Migration } from '../schema';

export const migration: Migration = {
  version: 12,
  name: 'failure fingerprints',
  batches: [],
};
