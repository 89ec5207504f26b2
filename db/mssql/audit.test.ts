// A command's audit row on SQL Server, run by the real driver against the stand-in TDS endpoint
// (test-support/fake-tds.ts): the command's statements and its row go on one connection inside one transaction; a
// row the server refuses fails the command; a deadlock runs the whole again. What the server then keeps
// or rolls back is proved by the contract suite (db/contract/audit.ts) against MSSQL_URL.
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditWrite, CancelResult } from '../../lib/engine/ports';
import type { FakeReplier, FakeTds } from './test-support/fake-tds';
import { closeFakeStores, openFakeStore } from './test-support/fake-store';

const TOKEN = '6f1c2a8e-4b7d-4e3a-9c5f-0a1b2c3d4e5f';
const isAudit = (text: string) => text.includes('INSERT INTO readpast.AuditLog');
const isCancel = (text: string) => text.includes('cancel_requested = CASE');

function replier(audit: 'ok' | 'refused' | 'deadlock once'): FakeReplier {
  let deadlocked = false;
  return (req) => {
    if (isAudit(req.text)) {
      if (audit === 'refused') return { error: { number: 515, message: "Cannot insert the value NULL into column 'actor'" } };
      if (audit === 'deadlock once' && !deadlocked) {
        deadlocked = true;
        return { error: { number: 1205, message: 'Transaction was deadlocked and has been chosen as the deadlock victim.' } };
      }
      return { sets: [{ columns: [['id', 'int']], rows: [[7]] }] };
    }
    if (isCancel(req.text)) {
      return {
        sets: [
          {
            columns: [
              ['old_status', 'nvarchar'],
              ['found', 'int'],
            ],
            rows: [['pending', 1]],
          },
          { columns: [['batch_id', 'int']], rows: [] },
        ],
      };
    }
    return { sets: [{ columns: [['x', 'int']], rows: [] }] };
  };
}

const row = (): AuditWrite<CancelResult> => ({
  entry: (r) => ({ actor: 'op', source: 'api', action: 'task.cancel', target: TOKEN, after: { result: r }, count: 1 }),
});

afterEach(closeFakeStores);

/** The kinds of statement each connection received, in order (cancel, audit, other). */
const perConnection = (tds: FakeTds) =>
  tds
    .logins()
    .map((c) => c.requests.map((q) => (isCancel(q.text) ? 'cancel' : isAudit(q.text) ? 'audit' : 'other')))
    .filter((l) => l.length > 0);

describe("a command's audit row on SQL Server", () => {
  it('is written after the command on the same connection, in its transaction; the store learns its id', async () => {
    const { tds, store: s } = await openFakeStore(replier('ok'));
    const audit = row();
    expect(await s.commands.cancel(TOKEN, audit)).toBe('cancelled');
    expect(perConnection(tds)).toEqual([['cancel', 'audit']]);
    expect(audit.id).toBe(7);
  });

  it('a row the server refuses fails the command (nothing is reported done)', async () => {
    const { tds, store: s } = await openFakeStore(replier('refused'));
    await expect(s.commands.cancel(TOKEN, row())).rejects.toMatchObject({ number: 515 });
    expect(perConnection(tds)).toEqual([['cancel', 'audit']]);
  });

  it('a deadlock on the row runs the command and its row again, whole', async () => {
    const { tds, store: s } = await openFakeStore(replier('deadlock once'));
    expect(await s.commands.cancel(TOKEN, row())).toBe('cancelled');
    expect(perConnection(tds).flat()).toEqual(['cancel', 'audit', 'cancel', 'audit']);
  });

  it('without a row the command is one statement, as before', async () => {
    const { tds, store: s } = await openFakeStore(replier('refused'));
    expect(await s.commands.cancel(TOKEN)).toBe('cancelled');
    expect(perConnection(tds)).toEqual([['cancel']]);
  });
});
