// A claim that comes back late, on SQL Server: a real pool on the store and the real driver, against the stand-in TDS
// endpoint answering its claim after most of the lease is gone. The pool never starts the handler: it gives the
// attempt back (FINISH with kind `given_back`, which undoes it) when less than a safe margin of the lease is left,
// and sends nothing when the lease lapsed before the claim returned (the rescue owns it); it logs the round trip
// against the lease either way.
import { afterEach, describe, expect, it } from 'vitest';
import { HandlerRegistry } from '../../lib/engine/handlers';
import type { Logger } from '../../lib/engine/logger';
import { Pool } from '../../lib/engine/pool';
import { leaseMargin } from '../../lib/engine/pool-late';
import { HOT, hotName } from './sql/hot';
import { CLAIM_COLUMNS, claimRow, claimSlotsOf, isClaimRequest } from './test-support/replies';
import { sessionRow, type FakeConnection, type FakeReply, type FakeRequest } from './test-support/fake-tds';
import { closeFakeStoresAfter, openFakeStore } from './test-support/fake-store';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const LEASE_MS = 2_000;
const HEARTBEAT_MS = 200;

/** One pending task; the claim that takes it answers after `claimDelayMs`; FINISH requests are kept. */
function server(claimDelayMs: number) {
  let claimed = false;
  const finishes: string[] = [];
  const reply = (req: FakeRequest, conn: FakeConnection): FakeReply | undefined => {
    if (req.text.includes('SET CONTEXT_INFO @tag')) return { sets: [sessionRow(conn, { login_name: 'app', user_name: 'app' })] };
    if (isClaimRequest(req)) {
      const slot = claimSlotsOf(req, conn)[0];
      const rows = claimed || !slot ? [] : [claimRow(7, slot, { command: 'test.run' })];
      const delayMs = claimed ? 0 : claimDelayMs;
      claimed = true;
      return {
        sets: [
          { columns: CLAIM_COLUMNS, rows },
          { columns: [['batch_id', 'bigint']], rows: [] },
        ],
        delayMs,
      };
    }
    if (req.text.includes(hotName(HOT.heartbeat)))
      return {
        sets: [
          {
            columns: [
              ['id', 'bigint'],
              ['cancel_requested', 'bit'],
            ],
            rows: [],
          },
        ],
      };
    if (req.text.includes(hotName(HOT.finish))) {
      finishes.push(req.text);
      return {
        sets: [
          {
            columns: [
              ['ord', 'int'],
              ['ok', 'int'],
              ['frees', 'int'],
            ],
            rows: [[0, 1, 0]],
          },
          { columns: [['batch_id', 'bigint']], rows: [] },
        ],
      };
    }
    return undefined;
  };
  return { reply, finishes };
}

function capture(): Logger & { warnings: { obj: unknown; msg: string }[] } {
  const warnings: { obj: unknown; msg: string }[] = [];
  const noop = () => {};
  return { warnings, debug: noop, info: noop, error: noop, warn: (obj, msg) => warnings.push({ obj, msg: msg ?? '' }) };
}

let pool: Pool | null = null;

afterEach(() => closeFakeStoresAfter(pool));

async function run(claimDelayMs: number) {
  const s = server(claimDelayMs);
  const { store } = await openFakeStore(s.reply, { wakeMs: 0 });
  const log = capture();
  const ran: unknown[] = [];
  const registry = new HandlerRegistry().register('test.run', (payload) => void ran.push(payload));
  pool = new Pool(store, registry, {
    concurrency: 1,
    maintenance: false,
    heartbeatMs: HEARTBEAT_MS,
    pollMs: 200,
    leaseMs: LEASE_MS,
    logger: log,
  });
  await pool.start();
  return { ...s, log, ran };
}

describe('a claim held past its lease (SQL Server store, stand-in TDS endpoint)', () => {
  it('with less than a safe margin left, the attempt is given back undone and its handler never starts', async () => {
    // the margin of a 2 s lease is 500 ms: a claim answered after 1.7 s leaves less
    expect(leaseMargin({ leaseMs: LEASE_MS, heartbeatMs: HEARTBEAT_MS })).toBe(500);
    const { finishes, log, ran } = await run(1_700);
    for (let i = 0; i < 300 && finishes.length === 0; i++) await sleep(20);
    expect(finishes).toHaveLength(1);
    expect(finishes[0]).toContain('"kind":"given_back"');
    expect(finishes[0]).toContain('"taskId":7');
    expect(ran).toEqual([]);
    const warn = log.warnings.find((w) => /safe margin/.test(w.msg))!;
    expect(warn.obj).toMatchObject({ leaseMs: LEASE_MS, marginMs: 500 });
    expect((warn.obj as { rttMs: number }).rttMs).toBeGreaterThanOrEqual(1_650);
  }, 30_000);

  it('with the lease already lapsed, nothing is started nor sent: the rescue owns the task', async () => {
    const { finishes, log, ran } = await run(2_300);
    for (let i = 0; i < 300 && !log.warnings.some((w) => /lapsed/.test(w.msg)); i++) await sleep(20);
    await sleep(300);
    expect(log.warnings.some((w) => /lapsed/.test(w.msg))).toBe(true);
    expect(finishes).toEqual([]);
    expect(ran).toEqual([]);
  }, 30_000);
});
