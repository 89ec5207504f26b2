// Answers to the store's statements that several tests give from the stand-in TDS endpoint (fake-tds.ts).
import type { FakeReply } from './fake-tds';

/** The columns of CLAIM's first result set (sql/claim.ts) before migration 20's parent_count (a reply may add it). */
export const CLAIM_COLUMNS = [
  ['id', 'bigint'],
  ['token', 'nvarchar'],
  ['queue', 'nvarchar'],
  ['kind', 'nvarchar'],
  ['command', 'nvarchar'],
  ['payload', 'nvarchar'],
  ['priority', 'int'],
  ['attempts', 'int'],
  ['max_attempts', 'int'],
  ['timeout_ms', 'int'],
  ['created_at', 'datetime'],
  ['run_after', 'datetime'],
  ['started_at', 'datetime'],
  ['token_no', 'int'],
  ['batch_id', 'bigint'],
  ['stage', 'int'],
  ['backoff_ms', 'int'],
  ['session', 'int'],
  ['served_stamp', 'bigint'],
] as const;

/** The session clean-up's answer after a sql task (SELECT @@TRANCOUNT AS trancount, …): clean, as `user`. */
export const cleanupReply = (user = 'app'): FakeReply => ({
  sets: [
    {
      columns: [
        ['trancount', 'int'],
        ['db', 'nvarchar'],
        ['original_login', 'nvarchar'],
        ['login_name', 'nvarchar'],
        ['user_name', 'nvarchar'],
      ],
      rows: [[0, 'fake', 'app', 'app', user]],
    },
  ],
});

/** The server probe's answer (sql/server.ts SERVER_PROBE): SQL Server 2022, or a stand-in (Babelfish). */
export const serverProbeReply = (babelfish: boolean): FakeReply => ({
  sets: [
    {
      columns: [
        ['babelfish', 'int'],
        ['babelfish_version', 'nvarchar'],
        ['version_text', 'nvarchar'],
        ['database_name', 'nvarchar'],
        ['product_version', 'nvarchar'],
        ['engine_edition', 'int'],
        ['compatibility_level', 'int'],
      ],
      rows: [
        babelfish
          ? [1, '4.3.0', 'Babelfish for Aurora PostgreSQL with SQL Server Compatibility - 12.0.2000.8', 'fake', null, null, null]
          : [0, null, 'Microsoft SQL Server 2022 (RTM-CU12) - 16.0.4125.3', 'fake', '16.0.4125.3', 3, 160],
      ],
    },
  ],
});
