// SQL Server migration 8: per-minute history. Every writing batch adds what it did to one HistoryMinutes
// row per (minute, queue, command) of its slot (sql/tally.ts TALLY, sql/history.ts HISTORY_TALLY);
// housekeeping rolls finished quarter hours into HistoryRollup at four levels ((queue, command),
// (queue, all), (all, command), (all, all), "all" being N'') and into the cumulative HistoryTotals (never
// pruned: the Prometheus counters). Metrics gains `dead`. Times are ms since 1970 in bigint, as Metrics
// keeps seconds. The T-SQL callers' procedures embed ENQUEUE_WRITE, which now records the history: they
// are installed again (CREATE OR ALTER, the list of migration 6).
import { SUM_COLS, HISTORY_COMMAND_MAX } from '../../../lib/engine/history';
import { index, table } from '../ddl';
import type { Migration } from './migration';
import { CALLER_PROCEDURES, createProcedure } from '../sql/callers';
import { METRICS_DEAD_COLUMN } from '../sql/history';
import { SEED_HISTORY_STATE } from '../sql/migrations';

const counters = SUM_COLS.map((c) => `  ${c} bigint NOT NULL CONSTRAINT DF_%T_${c} DEFAULT 0,`).join('\n');
const keyCols = `  queue   nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  command nvarchar(${HISTORY_COMMAND_MAX}) COLLATE Latin1_General_100_BIN2 NOT NULL,`;

export const migration: Migration = {
  version: 8,
  name: 'per-minute history',
  batches: [
    table(
      'HistoryMinutes',
      `  t       bigint NOT NULL,
${keyCols}
  slot    tinyint NOT NULL,
${counters.replaceAll('%T', 'HistoryMinutes')}
  CONSTRAINT PK_HistoryMinutes PRIMARY KEY CLUSTERED (t, queue, command, slot)`,
    ),
    table(
      'HistoryRollup',
      `${keyCols}
  t       bigint NOT NULL,
${counters.replaceAll('%T', 'HistoryRollup')}
  CONSTRAINT PK_HistoryRollup PRIMARY KEY CLUSTERED (queue, command, t)`,
    ),
    index('HistoryRollup', 'IX_HistoryRollup_t', 'CREATE INDEX IX_HistoryRollup_t ON readpast.HistoryRollup (t)'),
    table(
      'HistoryTotals',
      `${keyCols}
${counters.replaceAll('%T', 'HistoryTotals')}
  CONSTRAINT PK_HistoryTotals PRIMARY KEY CLUSTERED (queue, command)`,
    ),
    table(
      'HistoryState',
      `  id           int    NOT NULL,
  rolled_until bigint NOT NULL,
  CONSTRAINT PK_HistoryState PRIMARY KEY CLUSTERED (id),
  CONSTRAINT CK_HistoryState_one CHECK (id = 1)`,
    ),
    SEED_HISTORY_STATE,
    METRICS_DEAD_COLUMN,
    ...CALLER_PROCEDURES.map(createProcedure),
  ],
};
