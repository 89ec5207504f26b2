// SQL Server migration 11: task browser indexes.
import type { Migration } from '../schema';

export const migration: Migration = {
  version: 11,
  name: 'task browser indexes',
  batches: [],
};
