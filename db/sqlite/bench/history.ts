// The history reads at 30 days of per-minute rollups: 100 commands × 10 queues (1,000 combinations, a tenth
// of them active in any minute: ~4.3 M minute rows), rolled into quarter hours as housekeeping does, plus
// 24 h of the per-second series. Times every read of the Overview range selector, the queue and command
// pages and the sparklines (p50/p95 of 20 runs each) and the housekeeping roll of one quarter hour.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DUR_COLS, LAT_COLS, ROLL_MS, SUM_COLS } from '../../../lib/engine/history';
import { rollHistory } from '../history';
import { openSqliteStore as openStore } from '../store';

const MIN = 60_000;
const RANGES = {
  '15m': { span: 15 * MIN, bucket: 5_000 },
  '1h': { span: 60 * MIN, bucket: MIN },
  '24h': { span: 24 * 60 * MIN, bucket: 15 * MIN },
  '7d': { span: 7 * 24 * 60 * MIN, bucket: 60 * MIN },
  '30d': { span: 30 * 24 * 60 * MIN, bucket: 6 * 60 * MIN },
} as const;

function window(span: number, bucket: number, now: number) {
  const to = Math.floor(now / bucket) * bucket + bucket;
  return { from: new Date(to - Math.ceil(span / bucket) * bucket), to: new Date(to) };
}

/** Fill, roll, time; returns the figures (ms) keyed by read. */
export async function benchHistory(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'readpast-bench-history-'));
  const file = join(dir, 'history.db');
  (await openStore(file)).close();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const now = Date.now();
  const first = Math.floor((now - 30 * 24 * 3600_000) / MIN) * MIN;
  const minutes = Math.floor((now - first) / MIN);
  const t0 = performance.now();
  const value = (c: string) => {
    if (c === 'dur_max' || c === 'lat_max') return '((m + k) % 9000) + 10';
    if (c === 'dur_sum' || c === 'lat_sum') return '((m + k) % 5) * 140 + 35';
    if (DUR_COLS.includes(c)) return ['d6', 'd7', 'd8'].includes(c) ? '(m + k) % 3' : '0';
    if (LAT_COLS.includes(c)) return ['l3', 'l4', 'l9'].includes(c) ? '(m + k) % 3' : '0';
    if (c === 'failed') return '(m + k) % 7 = 0';
    if (c === 'dead') return '(m + k) % 31 = 0';
    return '((m + k) % 5) + 1';
  };
  db.exec(`CREATE TEMP TABLE combos (k INTEGER PRIMARY KEY, queue TEXT, command TEXT);
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
    INSERT INTO combos SELECT i, 'queue' || (i % 10), 'command.' || (i / 10) FROM n;`);
  db.exec(`WITH RECURSIVE mm(m) AS (SELECT 0 UNION ALL SELECT m + 1 FROM mm WHERE m < ${minutes - 1})
    INSERT INTO HistoryMinutes (t, queue, command, ${SUM_COLS.join(', ')})
    SELECT ${first} + m * ${MIN}, queue, command, ${SUM_COLS.map(value).join(', ')}
    FROM mm JOIN combos ON (m * 7 + k * 13) % 10 = 0 ORDER BY 1, 2, 3`);
  const rows = (db.prepare('SELECT COUNT(*) AS n FROM HistoryMinutes').get() as { n: number }).n;
  const sec0 = Math.floor(now / 1000) - 86_400;
  db.exec(`WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 86399)
    INSERT OR REPLACE INTO Metrics (sec, enqueued, started, succeeded, failed, latency_sum, latency_max, depth, dead)
    SELECT ${sec0} + i, i % 5, i % 5, i % 4, i % 3 = 0, (i % 5) * 20, 90, i % 300, i % 97 = 0 FROM s`);
  const filled = performance.now() - t0;
  // everything but the last quarter hour rolled, as housekeeping leaves it; then time the roll of one quarter
  const a = performance.now();
  while (db.transaction(() => rollHistory(db, now - ROLL_MS))() > 0);
  const rollAll = performance.now() - a;
  const b = performance.now();
  db.transaction(() => rollHistory(db, now))();
  const rollOne = performance.now() - b;
  db.exec('ANALYZE');
  db.close();
  console.error(
    `history: ${rows.toLocaleString('en')} minute rows (30 d, 1,000 queue × command) filled in ${Math.round(filled)} ms,`,
    `first roll of 30 d ${Math.round(rollAll)} ms, roll of one quarter hour ${rollOne.toFixed(1)} ms`,
  );

  const s = await openStore(file);
  const figures: Record<string, number> = {};
  const time = async (what: string, fn: () => Promise<unknown>) => {
    await fn();
    const runs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await fn();
      runs.push(performance.now() - t);
    }
    runs.sort((x, y) => x - y);
    const p50 = runs[9]!;
    const p95 = runs[18]!;
    figures[`${what} p50`] = Math.round(p50 * 10) / 10;
    figures[`${what} p95`] = Math.round(p95 * 10) / 10;
    console.error(what.padEnd(44), `p50 ${p50.toFixed(1)} ms`, `p95 ${p95.toFixed(1)} ms`);
  };
  for (const [range, r] of Object.entries(RANGES)) {
    const w = window(r.span, r.bucket, Date.now());
    const mb = Math.max(MIN, r.bucket);
    const wf = window(r.span, mb, Date.now());
    await time(`history ${range}, all`, () => s.reads.history({ ...w, bucketMs: r.bucket }));
    await time(`history ${range}, queue`, () => s.reads.history({ ...wf, bucketMs: mb, queue: 'queue3' }));
    await time(`history ${range}, command`, () => s.reads.history({ ...wf, bucketMs: mb, command: 'command.42' }));
    await time(`history ${range}, queue+command`, () => s.reads.history({ ...wf, bucketMs: mb, queue: 'queue2', command: 'command.42' }));
  }
  const w = window(60 * MIN, MIN, Date.now());
  await time('history, sparklines (1 h per queue)', () => s.reads.queueThroughput(w.from, w.to, MIN));
  await time('history, totals (GET /metrics)', () => s.reads.historyTotals());
  await s.close();
  rmSync(dir, { recursive: true, force: true });
  return figures;
}
