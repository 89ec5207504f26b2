// SQL Server migration 13: pool size per host and role.
import type { Migration } from '../schema';

export const migration: Migration = {
  version: 13,
  name: 'pool size per host and role',
  batches: [],
};
