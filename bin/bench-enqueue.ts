// Part of `npm run bench` (alone: BENCH_ONLY=enqueue npm run bench): where the time of an enqueue goes on the
// embedded store — each part of one awaited `rp.enqueue` of a plain handler task and of one `enqueueMany` of
// 1,000, in µs, next to the whole call through the library (db/sqlite/bench/enqueue-parts.ts says how each part
// is timed). Figures of one machine at one moment: read the parts against each other and against the whole.
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';
import { bulkParts, singleParts, type Part } from '../db/sqlite/bench/enqueue-parts';

const SINGLE = Number(process.env.BENCH_SINGLE ?? 2_000);
const BULK_CALLS = 20;
const BULK_SIZE = 1_000;

export interface EnqueueBench {
  single: { wholeUs: number; storeUs: number; parts: Part[] };
  bulk: { size: number; wholeUs: number; parts: Part[] };
}

const us = (x: number) => `${(Math.round(x * 10) / 10).toFixed(1).padStart(9)} µs`;

function print(log: (...a: unknown[]) => void, title: string, wholeUs: number, parts: Part[], storeUs?: number): void {
  log(`${title}: ${wholeUs} µs (CPU)`);
  for (const p of parts) log(`  ${us(p.us)}  ${p.part}`);
  if (storeUs !== undefined) {
    const store = parts.filter((p) => !p.part.startsWith('validation')).reduce((s, p) => s + p.us, 0);
    log(`  ${us(storeUs)}  the store's call (commands.enqueue of a validated task), of which:`);
    log(`  ${us(storeUs - store)}    the rest of it (transaction wrapper, tally, wake, promises)`);
    const validation = parts.find((p) => p.part.startsWith('validation'))?.us ?? 0;
    log(`  ${us(wholeUs - storeUs - validation)}  the rest of the front door (context, audit decision, promises)`);
  } else {
    log(`  ${us(wholeUs - parts.reduce((s, p) => s + p.us, 0))}  the rest of the call (front door, promises, results)`);
  }
}

export async function benchEnqueue(dir: string, log: (...a: unknown[]) => void): Promise<EnqueueBench> {
  let n = 0;
  const file = (name: string) => join(dir, `${name}-${++n}.db`);
  const rp = await openReadpast({ url: `sqlite:${file('enqueue')}` });
  try {
    rp.registry.register('bench.noop', () => null);
    const single = await singleParts(file, SINGLE, (raw) => rp.enqueue(raw as { command: string }));
    print(log, 'one awaited rp.enqueue', single.wholeUs, single.parts, single.storeUs);
    const bulk = await bulkParts(file, BULK_CALLS, BULK_SIZE, (raws) => rp.enqueueMany(raws));
    print(log, `one enqueueMany of ${BULK_SIZE}`, bulk.wholeUs, bulk.parts);
    return { single, bulk: { size: BULK_SIZE, ...bulk } };
  } finally {
    await rp.close();
  }
}
