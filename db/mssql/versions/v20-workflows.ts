// SQL Server migration 20: workflows — tasks that wait for other tasks, and flows (issue 25; the rules are in
// lib/engine/types/flows.ts, the T-SQL of their cascades in sql/edges.ts).
//  - Tasks.status may be 'waiting' (CK_Tasks_status again with it); the dedup key is unique among waiting, pending and
//    running tasks (UX_Tasks_dedup again, filtered with 'waiting'), and IX_Tasks_open (the browser's open tasks) too.
//  - Tasks.flow_id, flow_node (a node's id in its flow), parent_count, parents_left (open edges, kept with them) and
//    blocked_by (the parent whose failure cancelled the task: its retry re-arms the task). Indexed: a flow's tasks by
//    status, the tasks a parent blocked, the keys of waiting tasks (PRUNE_KEYS keeps their ConcurrencyKeys rows).
//  - TaskEdges (parent_id, child_id, on_parent_failure, done), clustered by parent (a settle walks its children), with
//    (child_id, parent_id) for a child's parents; Flows (one row per flow; its counts are read from Tasks).
// Then the enqueue and the finish under new names (Enqueue_v20 takes dependencies and flow nodes; Finish_v20 releases
// and cancels children) and the T-SQL callers again (ExecAsync takes @DependsOn and @OnParentFailure, CancelTask and
// RetryTask cascade). Enqueue_v19 and Finish_v17 stay for processes not yet upgraded: they enqueue and settle as
// before, but know nothing of edges — a task an old worker settles does not release (or cancel) its children, which
// then wait until the parent is retried or they are cancelled. Upgrade the workers with the schema before using
// dependencies. The index builds hold Tasks for their time (offline): migrate when no worker runs, or expect a pause.
import { dropIndex, index, table } from '../ddl';
import type { Migration } from './migration';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, createProcedure, roleBatches } from '../sql/callers';
import { createHotProcedure, HOT_PROCEDURES } from '../sql/hot';

const BIN2 = 'Latin1_General_100_BIN2';

/** The statuses a task may have from this migration on. */
export const TASK_STATUSES_V20 = "('waiting', 'pending', 'running', 'succeeded', 'dead', 'cancelled')";

const addColumn = (column: string, definition: string) => `IF COL_LENGTH(N'readpast.Tasks', N'${column}') IS NULL
  ALTER TABLE readpast.Tasks ADD ${column} ${definition};`;

/**
 * The new Tasks columns. Migration 6 adds them too, before it creates the T-SQL callers from today's statements
 * (CancelTask and RetryTask cascade through blocked_by and parents_left): an existing table's missing column would
 * fail CREATE PROCEDURE, as Metrics.dead would (schema.ts).
 */
export const WORKFLOW_COLUMNS = [
  addColumn('flow_id', 'bigint NULL'),
  addColumn('flow_node', `nvarchar(100) COLLATE ${BIN2} NULL`),
  addColumn('parent_count', 'int NOT NULL CONSTRAINT DF_Tasks_parent_count DEFAULT (0)'),
  addColumn('parents_left', 'int NOT NULL CONSTRAINT DF_Tasks_parents_left DEFAULT (0)'),
  addColumn('blocked_by', 'bigint NULL'),
];

export const migration: Migration = {
  version: 20,
  name: 'workflows: waiting tasks, dependencies, flows',
  batches: [
    `IF EXISTS (SELECT 1 FROM sys.check_constraints WHERE parent_object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'CK_Tasks_status')
  ALTER TABLE readpast.Tasks DROP CONSTRAINT CK_Tasks_status;`,
    `ALTER TABLE readpast.Tasks ADD CONSTRAINT CK_Tasks_status CHECK (status IN ${TASK_STATUSES_V20});`,
    ...WORKFLOW_COLUMNS,
    table(
      'TaskEdges',
      `  parent_id         bigint      NOT NULL,
  child_id          bigint      NOT NULL,
  on_parent_failure varchar(10) NOT NULL,
  done              bit         NOT NULL CONSTRAINT DF_TaskEdges_done DEFAULT (0),
  CONSTRAINT PK_TaskEdges PRIMARY KEY CLUSTERED (parent_id, child_id),
  CONSTRAINT CK_TaskEdges_policy CHECK (on_parent_failure IN ('cancel', 'run', 'wait'))`,
    ),
    index('TaskEdges', 'IX_TaskEdges_child', 'CREATE INDEX IX_TaskEdges_child ON readpast.TaskEdges (child_id, parent_id) INCLUDE (done)'),
    table(
      'Flows',
      `  id         bigint IDENTITY(1, 1) NOT NULL,
  name       nvarchar(200) NULL,
  caller     nvarchar(200) NULL,
  created_at datetime2(3)  NOT NULL,
  node_count int           NOT NULL,
  CONSTRAINT PK_Flows PRIMARY KEY CLUSTERED (id)`,
    ),
    index(
      'Tasks',
      'IX_Tasks_flow',
      'CREATE INDEX IX_Tasks_flow ON readpast.Tasks (flow_id, status) INCLUDE (finished_at) WHERE flow_id IS NOT NULL',
    ),
    index('Tasks', 'IX_Tasks_blocked', 'CREATE INDEX IX_Tasks_blocked ON readpast.Tasks (blocked_by) WHERE blocked_by IS NOT NULL'),
    index(
      'Tasks',
      'IX_Tasks_waiting_key',
      'CREATE INDEX IX_Tasks_waiting_key ON readpast.Tasks (queue, concurrency_key) ' +
        "WHERE status = 'waiting' AND concurrency_key IS NOT NULL",
    ),
    dropIndex('Tasks', 'UX_Tasks_dedup'),
    index(
      'Tasks',
      'UX_Tasks_dedup',
      'CREATE UNIQUE INDEX UX_Tasks_dedup ON readpast.Tasks (dedup_key) ' +
        "WHERE dedup_key IS NOT NULL AND status IN ('waiting', 'pending', 'running')",
    ),
    dropIndex('Tasks', 'IX_Tasks_open'),
    index(
      'Tasks',
      'IX_Tasks_open',
      "CREATE INDEX IX_Tasks_open ON readpast.Tasks (status, id) WHERE status IN ('waiting', 'pending', 'running')",
    ),
    ...HOT_PROCEDURES.filter((p) => p.version === 20).map(createHotProcedure),
    ...CALLER_PROCEDURES.map(createProcedure),
    ASYNC_EXEC_RESULTS_VIEW,
    ...roleBatches(),
  ],
};
