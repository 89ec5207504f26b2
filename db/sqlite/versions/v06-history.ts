// SQLite migration 6: per-minute history. Every write transaction adds its counts to one row per
// (minute, queue, command) of HistoryMinutes (tally.ts); housekeeping rolls each finished quarter hour
// into HistoryRollup at four levels — (queue, command), (queue, all), (all, command), (all, all), where
// "all" is '' — and into the cumulative HistoryTotals (never pruned: the Prometheus counters). Long
// ranges read the rolled rows of one level, so a 30-day read touches ~2,900 rows whatever the number of
// queues and commands. Metrics gains a `dead` column so that the per-second series counts dead tasks.
import { SUM_COLS } from '../../../lib/engine/history';
import type { SqliteMigration } from './migration';

const counters = SUM_COLS.map((c) => `  ${c} INTEGER NOT NULL DEFAULT 0,`).join('\n');

export const migration: SqliteMigration = {
  version: 6,
  name: 'per-minute history',
  sql: `
CREATE TABLE HistoryMinutes (
  t       INTEGER NOT NULL,
  queue   TEXT NOT NULL,
  command TEXT NOT NULL,
${counters}
  PRIMARY KEY (t, queue, command)
) WITHOUT ROWID;
CREATE TABLE HistoryRollup (
  queue   TEXT NOT NULL,
  command TEXT NOT NULL,
  t       INTEGER NOT NULL,
${counters}
  PRIMARY KEY (queue, command, t)
) WITHOUT ROWID;
CREATE INDEX HistoryRollup_t ON HistoryRollup(t);
CREATE TABLE HistoryTotals (
  queue   TEXT NOT NULL,
  command TEXT NOT NULL,
${counters}
  PRIMARY KEY (queue, command)
) WITHOUT ROWID;
CREATE TABLE HistoryState (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  rolled_until INTEGER NOT NULL
);
INSERT INTO HistoryState (id, rolled_until) VALUES (1, 0);
ALTER TABLE Metrics ADD COLUMN dead INTEGER NOT NULL DEFAULT 0;
`,
};
