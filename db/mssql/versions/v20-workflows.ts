// SQL Server migration 20: workflows — tasks that wait for other tasks, and flows (the rules are in
// lib/engine/types/flows.ts, the T-SQL of their cascades in sql/edges.ts).
//  - Tasks.status may be 'waiting' (CK_Tasks_status again with it); the dedup key is unique among waiting, pending
//    and running tasks (UX_Tasks_dedup again), and IX_Tasks_open (the browser's open tasks) too.
//  - Tasks.flow_id, flow_node, parent_count, parents_left (open edges, kept with them) and blocked_by (the parent
//    whose failure cancelled the task: its retry re-arms the task). Indexed: a flow's tasks by status, the tasks
//    a parent blocked, the keys of waiting tasks.
//  - TaskEdges (parent_id, child_id, on_parent_failure, done), clustered by parent, with (child_id, parent_id)
//    for a child's parents; Flows (one row per flow; its counts are read from Tasks).
// The index builds hold Tasks for their time (offline): migrate when no worker runs, or expect a pause.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 20,
  name: 'workflows: waiting tasks, dependencies, flows',
  batches: [
    `IF EXISTS (SELECT 1 FROM sys.check_constraints WHERE parent_object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'CK_Tasks_status')
  ALTER TABLE readpast.Tasks DROP CONSTRAINT CK_Tasks_status;`,
    `ALTER TABLE readpast.Tasks ADD CONSTRAINT CK_Tasks_status CHECK (status IN ('waiting', 'pending', 'running', ` +
      `'succeeded', 'dead', 'cancelled'));`,
    `IF COL_LENGTH(N'readpast.Tasks', N'flow_id') IS NULL
  ALTER TABLE readpast.Tasks ADD flow_id bigint NULL;`,
    `IF COL_LENGTH(N'readpast.Tasks', N'flow_node') IS NULL
  ALTER TABLE readpast.Tasks ADD flow_node nvarchar(100) COLLATE Latin1_General_100_BIN2 NULL;`,
    `IF COL_LENGTH(N'readpast.Tasks', N'parent_count') IS NULL
  ALTER TABLE readpast.Tasks ADD parent_count int NOT NULL CONSTRAINT DF_Tasks_parent_count DEFAULT (0);`,
    `IF COL_LENGTH(N'readpast.Tasks', N'parents_left') IS NULL
  ALTER TABLE readpast.Tasks ADD parents_left int NOT NULL CONSTRAINT DF_Tasks_parents_left DEFAULT (0);`,
    `IF COL_LENGTH(N'readpast.Tasks', N'blocked_by') IS NULL
  ALTER TABLE readpast.Tasks ADD blocked_by bigint NULL;`,
    `IF OBJECT_ID(N'readpast.TaskEdges', N'U') IS NULL
CREATE TABLE readpast.TaskEdges (
  parent_id         bigint      NOT NULL,
  child_id          bigint      NOT NULL,
  on_parent_failure varchar(10) NOT NULL,
  done              bit         NOT NULL CONSTRAINT DF_TaskEdges_done DEFAULT (0),
  CONSTRAINT PK_TaskEdges PRIMARY KEY CLUSTERED (parent_id, child_id),
  CONSTRAINT CK_TaskEdges_policy CHECK (on_parent_failure IN ('cancel', 'run', 'wait'))
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.TaskEdges') AND name = N'IX_TaskEdges_child')
CREATE INDEX IX_TaskEdges_child ON readpast.TaskEdges (child_id, parent_id) INCLUDE (done);`,
    `IF OBJECT_ID(N'readpast.Flows', N'U') IS NULL
CREATE TABLE readpast.Flows (
  id         bigint IDENTITY(1, 1) NOT NULL,
  name       nvarchar(200) NULL,
  caller     nvarchar(200) NULL,
  created_at datetime2(3)  NOT NULL,
  node_count int           NOT NULL,
  CONSTRAINT PK_Flows PRIMARY KEY CLUSTERED (id)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_flow')
CREATE INDEX IX_Tasks_flow ON readpast.Tasks (flow_id, status) INCLUDE (finished_at) WHERE flow_id IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_blocked')
CREATE INDEX IX_Tasks_blocked ON readpast.Tasks (blocked_by) WHERE blocked_by IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_waiting_key')
CREATE INDEX IX_Tasks_waiting_key ON readpast.Tasks (queue, concurrency_key) WHERE status = 'waiting' AND concurrency_key IS NOT NULL;`,
    `IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'UX_Tasks_dedup')
  DROP INDEX UX_Tasks_dedup ON readpast.Tasks;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'UX_Tasks_dedup')
CREATE UNIQUE INDEX UX_Tasks_dedup ON readpast.Tasks (dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('waiting', ` +
      `'pending', 'running');`,
    `IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_open')
  DROP INDEX IX_Tasks_open ON readpast.Tasks;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_open')
CREATE INDEX IX_Tasks_open ON readpast.Tasks (status, id) WHERE status IN ('waiting', 'pending', 'running');`,
  ],
};
