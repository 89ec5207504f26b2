// `npm run bench:log` (SQLite): the dashboard's reads against 1,000,000 tasks and ExecutionLog rows (keyset
// pages, filters, the per-second poll of the Overview). Prints each figure; the last line is JSON.
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore as openStore } from '../store';
import { BROWSER_PAYLOAD, benchTaskBrowser, fillBrowserStates } from './tasks';
import { benchHistory } from './history';
const dir = mkdtempSync(join(tmpdir(), 'readpast-bench-log-'));
const file = join(dir, 'log.db');
const store = await openStore(file);
await store.close();
const db = new Database(file);
db.pragma('journal_mode = WAL');
const t0 = Date.now();
db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
  INSERT INTO Tasks (id, token, queue, kind, command, status, priority, run_after, attempts, max_attempts, created_at, finished_at,
    error_message, payload)
  SELECT i, printf('00000000-0000-7000-8000-%012d', i),
    CASE i % 4 WHEN 0 THEN 'default' WHEN 1 THEN 'emails' WHEN 2 THEN 'etl' ELSE 'reports' END,
    'handler', CASE WHEN i % 1000 = 0 THEN 'demo.fail' ELSE 'demo.echo' END, CASE WHEN i % 1000 = 0 THEN 'dead' ELSE 'succeeded' END,
    0, ${t0} + i, 1, 5, ${t0} + i, ${t0} + i + 5, CASE WHEN i % 1000 = 0 THEN 'boom ' || (i % 7) END,
    ${BROWSER_PAYLOAD} FROM n;
  INSERT INTO ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, started_at, ended_at, outcome, error_message)
  SELECT id, 1, queue, kind, command, 'w-1', 51, created_at, finished_at,
    CASE status WHEN 'dead' THEN 'failed' ELSE 'succeeded' END, error_message FROM Tasks;`);
fillBrowserStates(db, t0);
db.close();
console.error('filled 1,000,000 tasks and attempts in', Date.now() - t0, 'ms');
const s = await openStore(file);
const figures: Record<string, number> = {};
const time = async (what: string, fn: () => Promise<{ items: unknown[]; nextCursor: number | null }>) => {
  await fn(); // warm the page cache, then time the second read
  const a = performance.now();
  const r = await fn();
  const ms = performance.now() - a;
  figures[what] = Math.round(ms * 10) / 10;
  console.error(what.padEnd(44), `${ms.toFixed(1)} ms`, `${r.items.length} rows`);
};
await time('log, newest page', () => s.reads.listAttempts({ limit: 50 }));
const mid = 500000;
await time('log, page at cursor 500000', () => s.reads.listAttempts({ limit: 50, cursor: mid }));
await time('log, outcome=failed', () => s.reads.listAttempts({ outcome: 'failed', limit: 50 }));
await time('log, outcome=failed, deep cursor', () => s.reads.listAttempts({ outcome: 'failed', limit: 50, cursor: 100000 }));
await time('log, queue=etl', () => s.reads.listAttempts({ queue: 'etl', limit: 50 }));
await time('log, text "boom 3"', () => s.reads.listAttempts({ q: 'boom 3', limit: 50 }));
await time('log, time range (middle)', () => s.reads.listAttempts({ from: new Date(t0 + 400000), to: new Date(t0 + 400100), limit: 50 }));
await time('tasks, status=dead', () => s.reads.listTasks({ status: 'dead', limit: 50 }));
await time('overview poll (counts, running, metrics)', async () => {
  await s.reads.countsByQueue();
  await s.reads.listRunning();
  await s.reads.metrics(new Date(Date.now() - 900000));
  return { items: [], nextCursor: null };
});
await time('failure groups', () => s.reads.failureGroupPage({}));
await benchTaskBrowser(s, figures);
await s.close();
rmSync(dir, { recursive: true, force: true });
Object.assign(figures, await benchHistory());
const slowest = Math.max(...Object.values(figures));
console.log(JSON.stringify({ rows: 1_000_000, ...figures, slowestMs: slowest }));
