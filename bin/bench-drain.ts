// The benches' drain measure: a pool started on tasks already enqueued, timed until every one succeeded.
import { readModelOf, type Readpast } from '../lib/api/readpast';

/** Tasks per second for a pool of `pool` (no housekeeping) to run the `n` tasks of `queue`; throws on a failure. */
export async function drainRate(rp: Readpast, queue: string, n: number, pool: number): Promise<number> {
  const p = rp.createPool({ concurrency: pool, role: 'bench', maintenance: false });
  const t0 = performance.now();
  await p.start();
  for (;;) {
    const q = (await readModelOf(rp).countsByQueue()).find((c) => c.queue === queue);
    if (q && q.succeeded >= n) break;
    if (q && q.dead + q.cancelled > 0) throw new Error(`bench: ${queue}: ${q.dead} dead, ${q.cancelled} cancelled`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const perSec = n / ((performance.now() - t0) / 1000);
  await p.stop();
  return perSec;
}
