// SQLite migration 14: flow control. A task may carry a concurrency key (given at enqueue or derived from its
// payload by its queue's key_from); a queue may cap the running tasks of each key (per_key_limit) and limit the
// attempts started in a window of time (rate_limit per rate_period_s, per key when rate_per_key).
//  - ConcurrencyKeys: one row per (queue, key) with unfinished tasks; served_at = when a claim last started a
//    task of the key, so keys take turns (least recently served first).
//  - RateSlots: at most `rate_limit` slots per (queue, rate_key); an attempt start takes one whose used_at has
//    left the window (rate_key '' = the queue as a whole, or the tasks with no key under a per-key rate).
// The unkeyed unbatched lane (Tasks_dequeue) leaves the keyed tasks out: they are served by key lanes
// (Tasks_key_dequeue); Tasks_key_open counts a key's running tasks with a seek. Two triggers keep a row in
// ConcurrencyKeys for every key with a pending task, whichever statement made it pending.
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 14,
  name: 'flow control',
  sql: `
ALTER TABLE Tasks ADD COLUMN concurrency_key TEXT;
ALTER TABLE Queues ADD COLUMN per_key_limit INTEGER;
ALTER TABLE Queues ADD COLUMN key_from TEXT;
ALTER TABLE Queues ADD COLUMN rate_limit INTEGER;
ALTER TABLE Queues ADD COLUMN rate_period_s INTEGER;
ALTER TABLE Queues ADD COLUMN rate_per_key INTEGER NOT NULL DEFAULT 0;

DROP INDEX Tasks_dequeue;
CREATE INDEX Tasks_dequeue ON Tasks(priority DESC, id) WHERE status = 'pending' AND batch_id IS NULL AND concurrency_key IS NULL;
CREATE INDEX Tasks_key_dequeue ON Tasks(queue, concurrency_key, priority DESC, id)
  WHERE status = 'pending' AND batch_id IS NULL AND concurrency_key IS NOT NULL;
CREATE INDEX Tasks_key_open ON Tasks(queue, concurrency_key, status, lease_until)
  WHERE status IN ('pending', 'running') AND concurrency_key IS NOT NULL;

CREATE TABLE ConcurrencyKeys (
  queue           TEXT NOT NULL,
  concurrency_key TEXT NOT NULL,
  served_at       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (queue, concurrency_key)
) WITHOUT ROWID;
CREATE INDEX ConcurrencyKeys_served ON ConcurrencyKeys(served_at, queue, concurrency_key);

CREATE TABLE RateSlots (
  queue    TEXT NOT NULL,
  rate_key TEXT NOT NULL,
  slot_no  INTEGER NOT NULL,
  used_at  INTEGER NOT NULL DEFAULT 0,
  task_id  INTEGER,
  PRIMARY KEY (queue, rate_key, slot_no)
) WITHOUT ROWID;
CREATE INDEX RateSlots_used ON RateSlots(queue, rate_key, used_at);

-- every way a keyed task becomes pending (enqueue, a schedule's fire, a retry, a move to another queue) gives
-- its key a row; maintenance deletes the rows of keys with no pending or running task
CREATE TRIGGER Tasks_key_insert AFTER INSERT ON Tasks WHEN NEW.concurrency_key IS NOT NULL BEGIN
  INSERT INTO ConcurrencyKeys (queue, concurrency_key) VALUES (NEW.queue, NEW.concurrency_key) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER Tasks_key_pending AFTER UPDATE OF status, queue ON Tasks
  WHEN NEW.concurrency_key IS NOT NULL AND NEW.status = 'pending' BEGIN
  INSERT INTO ConcurrencyKeys (queue, concurrency_key) VALUES (NEW.queue, NEW.concurrency_key) ON CONFLICT DO NOTHING;
END;
`,
};
