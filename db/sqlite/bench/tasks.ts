// The Tasks page's reads in `npm run bench:log`: state tabs, a payload filter, deep pages, pendingBreakdown,
// each timed over repeated runs (p50 / p95) against the bench's 1,000,000 tasks.
import type Database from 'better-sqlite3';
import type { Store } from '../../../lib/engine/ports';
import type { TaskFilter } from '../../../lib/engine/types';

/** The SQL of each bench task's payload (`i` is the task's number): a customer id out of 10,007, a tier, the order. */
export const BROWSER_PAYLOAD = `json_object('customer', json_object('id', i % 10007, 'tier', CASE i % 3 WHEN 0 THEN 'gold'
    WHEN 1 THEN 'silver' ELSE 'bronze' END), 'order', 'ord-' || i)`;

const PENDING = 30_000;
const RUNNING = 100;

/**
 * The newest 30,000 tasks become pending — a third ready, a third scheduled (tomorrow), a third retrying (in an
 * hour) — and the 100 before them running; the kept counts are rebuilt from the table (the fill bypasses them).
 */
export function fillBrowserStates(db: Database.Database, t0: number): void {
  const top = 1_000_000;
  db.exec(`UPDATE Tasks SET status = 'pending', finished_at = NULL, error_message = NULL,
      attempts = CASE id % 3 WHEN 2 THEN 1 ELSE 0 END,
      run_after = CASE id % 3 WHEN 0 THEN ${t0 - 1000} WHEN 1 THEN ${t0 + 86_400_000} ELSE ${t0 + 3_600_000} END
    WHERE id > ${top - PENDING};
  UPDATE Tasks SET status = 'running', finished_at = NULL, error_message = NULL, started_at = created_at, worker_id = 'w-1',
      lease_until = ${t0 + 3_600_000}
    WHERE id > ${top - PENDING - RUNNING} AND id <= ${top - PENDING};
  DELETE FROM QueueCounts;
  INSERT INTO QueueCounts (queue, status, n) SELECT queue, status, COUNT(*) FROM Tasks GROUP BY queue, status;`);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

const RUNS = 30;

/** Time the Tasks page's reads; adds `tasks: <what> p95` figures (ms). */
export async function benchTaskBrowser(s: Store, figures: Record<string, number>): Promise<void> {
  const time = async (what: string, fn: () => Promise<string>) => {
    let note = await fn(); // warm the page cache
    const ms: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const a = performance.now();
      note = await fn();
      ms.push(performance.now() - a);
    }
    ms.sort((x, y) => x - y);
    const p50 = pct(ms, 0.5);
    const p95 = pct(ms, 0.95);
    figures[`tasks: ${what} p95`] = Math.round(p95 * 10) / 10;
    console.error(`tasks: ${what}`.padEnd(52), `p50 ${p50.toFixed(1)} ms`.padEnd(14), `p95 ${p95.toFixed(1)} ms`, ` ${note}`);
  };
  const list = (f: TaskFilter) => async () => {
    const p = await s.reads.listTasks({ limit: 50, ...f });
    return `${p.items.length} rows${p.partial ? `, partial (scanned ${p.scanned})` : ''}`;
  };
  console.error(`Tasks page reads, ${RUNS} runs each:`);
  await time('all, newest page', list({}));
  await time('tab dead', list({ status: 'dead' }));
  await time('tab succeeded', list({ status: 'succeeded' }));
  await time('tab running', list({ status: 'running' }));
  await time('tab ready', list({ status: 'pending', sub: 'ready' }));
  await time('tab scheduled', list({ status: 'pending', sub: 'scheduled' }));
  await time('tab retrying', list({ status: 'pending', sub: 'retrying' }));
  await time('tab dead, deep page (cursor 100,000)', list({ status: 'dead', cursor: 100_000 }));
  await time('all, deep page (cursor 100,000)', list({ cursor: 100_000 }));
  await time('tab succeeded, deep page (cursor 100,000)', list({ status: 'succeeded', cursor: 100_000 }));
  await time('tab dead + queue', list({ status: 'dead', queue: 'etl' }));
  await time(
    'tab dead + payload customer.id = 1000',
    list({ status: 'dead', payload: { path: '$.customer.id', op: 'eq', value: '1000' } }),
  );
  await time('payload customer.tier = gold (many match)', list({ payload: { path: '$.customer.tier', op: 'eq', value: 'gold' } }));
  await time('payload customer.id = 1234 (scans 50,000)', list({ payload: { path: '$.customer.id', op: 'eq', value: '1234' } }));
  await time('payload order ~ ord-99999 (scans 50,000)', list({ payload: { path: '$.order', op: 'contains', value: 'ord-99999' } }));
  await time('text q=boom 3 (scans 50,000)', list({ q: 'boom 3' }));
  await time('pendingBreakdown', async () => `${(await s.reads.pendingBreakdown()).length} queues`);
  await time('tab counts (countsByQueue + pendingBreakdown)', async () => {
    await s.reads.countsByQueue();
    return `${(await s.reads.pendingBreakdown()).length} queues`;
  });
}
