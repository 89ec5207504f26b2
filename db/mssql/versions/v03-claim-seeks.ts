// SQL Server migration 3: the claim seeks per queue. IX_Tasks_dequeue led with priority: each claim walked (and
// locked) every higher-priority row of other, paused or full queues, and every delayed one, before reaching its
// own. The claim reads the head of each candidate queue with a seek on IX_Tasks_ready; a limited queue's room
// counts its running tasks with a live lease on IX_Tasks_running_queue. The index builds hold the table for
// their time (offline: ONLINE = ON needs Enterprise edition).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 3,
  name: 'the claim seeks per queue',
  batches: [
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ready')
CREATE INDEX IX_Tasks_ready ON readpast.Tasks (queue, priority DESC, id) INCLUDE (run_after) WHERE status = 'pending' ` +
      `AND batch_id IS NULL;`,
    `IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_dequeue')
  DROP INDEX IX_Tasks_dequeue ON readpast.Tasks;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_running_queue')
CREATE INDEX IX_Tasks_running_queue ON readpast.Tasks (queue, lease_until) WHERE status = 'running';`,
  ],
};
