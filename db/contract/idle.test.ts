// Idle costs nothing (db/contract/idle.ts): a pool with no task ready sends at most one claim per poll interval and
// writes nothing but heartbeats — on SQLite not one write statement and not one write transaction (the file's write
// lock), on SQL Server not one request that writes (against the stand-in TDS endpoint). Counted, not timed: the
// claims are compared with the poll intervals that passed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { idleMssql, idleSqlite, type IdleFigures } from './idle';

const dir = mkdtempSync(join(tmpdir(), 'readpast-idle-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function holds(f: IdleFigures): void {
  const polls = (f.seconds * 1000) / f.pollMs;
  // one claim per poll interval (the timer's), and no more: nothing wakes an idle pool
  expect(f.claims, JSON.stringify(f)).toBeGreaterThanOrEqual(1);
  expect(f.claims, JSON.stringify(f)).toBeLessThanOrEqual(Math.ceil(polls) + 1);
  expect(f.heartbeatsPerMinute).toBeGreaterThan(0);
  // nothing written but heartbeats (and the claims' own)
  expect(f.writers).toEqual({});
  expect(f.writesPerMinute).toBe(0);
}

describe('an idle pool costs nothing', () => {
  it('SQLite: one claim per poll interval; no write statement, no write transaction but heartbeats', async () => {
    const f = await idleSqlite(dir, { seconds: 4, pollMs: 250 });
    holds(f);
    expect(f.writeTransactionsPerMinute).toBe(0);
    // the maintenance still looks, every second: reads only
    expect(f.readsPerMinute).toBeGreaterThan(0);
  });

  it('SQL Server: one claim request per poll interval; no request that writes but heartbeats', async () => {
    const f = await idleMssql({ seconds: 4, pollMs: 250 });
    holds(f);
    expect(f.readsPerMinute).toBeGreaterThan(0);
  });
});
