// Answers to the store's statements that several tests give from the stand-in TDS endpoint (fake-tds.ts).
import type { FakeConnection, FakeReply, FakeRequest } from './fake-tds';

/**
 * The columns of CLAIM's first result set (sql/claim.ts) but parent_count (a reply may add it): a row per slot filled,
 * its worker (worker_id) last.
 */
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
  ['worker_id', 'nvarchar'],
] as const;

/** The slots a claim request asks to fill, in order, each with the session it names (null: the claiming one's). */
export function claimSlotsOf(req: FakeRequest, conn: FakeConnection): { workerId: string; session: number }[] {
  const raw = req.call?.params.slots;
  if (typeof raw !== 'string') return [];
  return (JSON.parse(raw) as { workerId: string; session: number | null }[]).map((s) => ({
    workerId: s.workerId,
    session: s.session ?? conn.spid,
  }));
}

/** A handler task claimed for `slot`, as a row of CLAIM_COLUMNS (id 7 → token …000000000007). */
export function claimRow(
  id: number,
  slot: { workerId: string; session: number },
  task: { command?: string; payload?: unknown; attempt?: number } = {},
): unknown[] {
  const now = new Date();
  const token = `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`;
  const payload = JSON.stringify(task.payload ?? {});
  const command = task.command ?? 'demo.sleep';
  return [id, token, 'default', 'handler', command, payload, 0, task.attempt ?? 1, 3, null, now, now, now, null, null, null, 1000].concat([
    slot.session,
    1,
    slot.workerId,
  ]);
}

/** A claim request (by its parameter: a slot list). */
export const isClaimRequest = (req: FakeRequest) => typeof req.call?.params.slots === 'string';

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
