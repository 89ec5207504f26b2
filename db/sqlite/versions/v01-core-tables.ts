// SQLite migration 1: the core tables. Times are integer milliseconds since the epoch (UTC).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 1,
  name: 'core tables',
  sql: `
CREATE TABLE Queues (
  name              TEXT PRIMARY KEY,
  concurrency_limit INTEGER,
  paused            INTEGER NOT NULL DEFAULT 0,
  max_attempts      INTEGER NOT NULL DEFAULT 5,
  timeout_ms        INTEGER,
  backoff_ms        INTEGER NOT NULL DEFAULT 1000,
  lock_version      INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL
);

CREATE TABLE Tasks (
  id               INTEGER PRIMARY KEY,
  token            TEXT NOT NULL,
  queue            TEXT NOT NULL,
  kind             TEXT NOT NULL,
  command          TEXT NOT NULL,
  payload          TEXT,
  status           TEXT NOT NULL,
  priority         INTEGER NOT NULL DEFAULT 0,
  run_after        INTEGER NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  max_attempts     INTEGER NOT NULL,
  timeout_ms       INTEGER,
  dedup_key        TEXT,
  caller           TEXT,
  batch_id         INTEGER,
  stage            INTEGER,
  lease_until      INTEGER,
  worker_id        TEXT,
  token_no         INTEGER,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  started_at       INTEGER,
  finished_at      INTEGER,
  error_number     INTEGER,
  error_message    TEXT,
  error_detail     TEXT,
  result           TEXT
);
CREATE UNIQUE INDEX Tasks_token ON Tasks(token);
CREATE UNIQUE INDEX Tasks_dedup ON Tasks(dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running');
CREATE INDEX Tasks_dequeue ON Tasks(priority DESC, id) WHERE status = 'pending' AND batch_id IS NULL;
CREATE INDEX Tasks_batch_dequeue ON Tasks(batch_id, stage, priority DESC, id) WHERE status = 'pending' AND batch_id IS NOT NULL;
CREATE INDEX Tasks_batch ON Tasks(batch_id, stage, id) WHERE batch_id IS NOT NULL;
CREATE INDEX Tasks_ended ON Tasks(status, id) WHERE status IN ('dead', 'cancelled');

CREATE TABLE ExecutionLog (
  id            INTEGER PRIMARY KEY,
  task_id       INTEGER NOT NULL,
  attempt       INTEGER NOT NULL,
  queue         TEXT NOT NULL,
  kind          TEXT NOT NULL,
  command       TEXT NOT NULL,
  worker_id     TEXT,
  session       INTEGER,
  token_no      INTEGER,
  batch_id      INTEGER,
  stage         INTEGER,
  started_at    INTEGER NOT NULL,
  ended_at      INTEGER,
  outcome       TEXT NOT NULL,
  error_number  INTEGER,
  error_message TEXT,
  error_detail  TEXT
);
CREATE UNIQUE INDEX ExecutionLog_attempt ON ExecutionLog(task_id, attempt);
CREATE INDEX ExecutionLog_open ON ExecutionLog(task_id) WHERE ended_at IS NULL;
CREATE INDEX ExecutionLog_unsuccessful ON ExecutionLog(outcome, id) WHERE outcome NOT IN ('running', 'succeeded');

CREATE TABLE Workers (
  worker_id    TEXT PRIMARY KEY,
  host         TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  role         TEXT NOT NULL,
  session      INTEGER NOT NULL,
  login_time   INTEGER NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  state        TEXT NOT NULL,
  stopped_at   INTEGER
);

CREATE TABLE Handlers (
  name    TEXT PRIMARY KEY,
  seen_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE QueueCounts (
  queue  TEXT NOT NULL,
  status TEXT NOT NULL,
  n      INTEGER NOT NULL,
  PRIMARY KEY (queue, status)
) WITHOUT ROWID;

CREATE TABLE Metrics (
  sec         INTEGER PRIMARY KEY,
  enqueued    INTEGER NOT NULL DEFAULT 0,
  started     INTEGER NOT NULL DEFAULT 0,
  succeeded   INTEGER NOT NULL DEFAULT 0,
  failed      INTEGER NOT NULL DEFAULT 0,
  latency_sum INTEGER NOT NULL DEFAULT 0,
  latency_max INTEGER NOT NULL DEFAULT 0,
  depth       INTEGER
);

-- Taskling's tokens: a limited queue has tokens 1..limit; a claim grants one in its transaction
CREATE TABLE ConcurrencyTokens (
  queue      TEXT NOT NULL,
  token_no   INTEGER NOT NULL,
  status     TEXT NOT NULL DEFAULT 'free',
  task_id    INTEGER,
  attempt    INTEGER,
  worker_id  TEXT,
  granted_at INTEGER,
  PRIMARY KEY (queue, token_no)
) WITHOUT ROWID;

CREATE TABLE QueueChanges (
  id         INTEGER PRIMARY KEY,
  queue      TEXT NOT NULL,
  at         INTEGER NOT NULL,
  changed_by TEXT NOT NULL,
  field      TEXT NOT NULL,
  old_value  TEXT NOT NULL,
  new_value  TEXT NOT NULL
);
CREATE INDEX QueueChanges_queue ON QueueChanges(queue, id);

-- the seeds' scheduler handles: ordered stages of parallel tasks
CREATE TABLE Batches (
  id           INTEGER PRIMARY KEY,
  caller       TEXT,
  max_parallel INTEGER,
  on_failure   TEXT NOT NULL DEFAULT 'continue',
  status       TEXT NOT NULL DEFAULT 'open',
  served_at    INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  released_at  INTEGER,
  completed_at INTEGER
);
CREATE INDEX Batches_live ON Batches(served_at, id) WHERE status IN ('open', 'released', 'aborted');

CREATE TABLE BatchStages (
  batch_id         INTEGER NOT NULL,
  stage            INTEGER NOT NULL,
  total            INTEGER NOT NULL DEFAULT 0,
  pending          INTEGER NOT NULL DEFAULT 0,
  running          INTEGER NOT NULL DEFAULT 0,
  succeeded        INTEGER NOT NULL DEFAULT 0,
  dead             INTEGER NOT NULL DEFAULT 0,
  cancelled        INTEGER NOT NULL DEFAULT 0,
  first_started_at INTEGER,
  last_ended_at    INTEGER,
  PRIMARY KEY (batch_id, stage)
) WITHOUT ROWID;

CREATE VIEW ExecutionStatus AS
  SELECT l.id AS log_id, l.task_id, t.token, l.queue, l.kind, l.command, l.attempt, t.max_attempts,
         l.worker_id, l.session, l.token_no, l.batch_id, l.stage, l.started_at, t.lease_until, t.cancel_requested
  FROM ExecutionLog l JOIN Tasks t ON t.id = l.task_id
  WHERE l.ended_at IS NULL AND t.status = 'running' AND t.attempts = l.attempt;
`,
};
