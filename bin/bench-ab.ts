// `npm run bench:ab -- <other checkout>`: this tree's drain against another checkout's (a release, a branch; it needs
// its own `npm install`), in ONE process, alternating which goes first each round, on fresh SQLite files. Two
// separate runs of `npm run bench` or `bench:peers` differ by 10–30 % on one machine from run to run; here both
// trees share the process, the heap and the machine's moment, so what is left between them is the code. Prints, per
// pool size, the median drained tasks/s and the median CPU time of the process per task (user + system) of each
// tree, and their ratios (this tree over the other: > 1 is faster, a CPU ratio < 1 is cheaper); the last line is one
// JSON object. BENCH_AB_ROUNDS (10), BENCH_AB_TASKS (20,000) and BENCH_AB_POOLS (4,16) change the sizes.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 10);
const N = Number(process.env.BENCH_AB_TASKS ?? 20_000);
const POOLS = (process.env.BENCH_AB_POOLS ?? '4,16').split(',').map(Number);
const BULK = 1_000;

interface Drainable {
  registry: { register(name: string, fn: () => unknown): void };
  enqueueMany(items: { command: string; payload: unknown }[]): Promise<unknown>;
  createPool(opts: { concurrency: number; role: string; maintenance: boolean }): {
    start(): Promise<void>;
    stop(): Promise<void>;
  };
  close(): Promise<void>;
}
interface Tree {
  label: string;
  open(url: string): Promise<Drainable>;
  succeeded(rp: Drainable): Promise<number>;
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A checkout's public opening and its read model (`readModelOf`, or the `reads` of older releases). */
async function load(root: string, label: string): Promise<Tree> {
  const open = await import(join(root, 'lib/api/open.ts'));
  const api = await import(join(root, 'lib/api/readpast.ts'));
  const reads = (rp: Drainable) =>
    (api.readModelOf ? api.readModelOf(rp) : (rp as unknown as { reads: unknown }).reads) as {
      countsByQueue(): Promise<{ queue: string; succeeded: number }[]>;
    };
  return {
    label,
    open: (url) => open.openReadpast({ url }),
    succeeded: async (rp) => (await reads(rp).countsByQueue()).find((c) => c.queue === 'default')?.succeeded ?? 0,
  };
}

/** Drain N trivial tasks with a pool of `concurrency`: tasks/s and CPU µs per task. */
async function drain(tree: Tree, file: string, concurrency: number): Promise<{ rate: number; cpuUs: number }> {
  const rp = await tree.open(`sqlite:${file}`);
  rp.registry.register('bench.noop', () => null);
  const items = Array.from({ length: BULK }, (_, i) => ({ command: 'bench.noop', payload: { i } }));
  for (let done = 0; done < N; done += BULK) await rp.enqueueMany(items);
  const pool = rp.createPool({ concurrency, role: 'bench', maintenance: false });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await pool.start();
  while ((await tree.succeeded(rp)) < N) await sleep(2);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  await pool.stop();
  await rp.close();
  return { rate: N / (wall / 1000), cpuUs: (cpu.user + cpu.system) / N };
}

async function main(): Promise<void> {
  const other = process.argv[2];
  if (!other || !existsSync(join(other, 'lib/api/open.ts')) || !existsSync(join(other, 'node_modules'))) {
    console.error('usage: npm run bench:ab -- <another checkout of readpast, with its node_modules>');
    process.exit(2);
  }
  const trees = [await load(resolve('.'), 'this'), await load(resolve(other), 'other')];
  const dir = mkdtempSync(join(tmpdir(), 'readpast-ab-'));
  const rates: Record<string, number[]> = {};
  const cpus: Record<string, number[]> = {};
  let fileNo = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const pool of POOLS) {
        for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
          const { rate, cpuUs } = await drain(tree, join(dir, `ab-${++fileNo}.db`), pool);
          const key = `${tree.label}.pool${pool}`;
          (rates[key] ??= []).push(rate);
          (cpus[key] ??= []).push(cpuUs);
          console.error(`round ${round + 1} ${key.padEnd(14)} ${Math.round(rate)} tasks/s, ${cpuUs.toFixed(1)} µs CPU/task`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const out: Record<string, number | string> = { other: resolve(other), rounds: ROUNDS, tasks: N, load: loadavg()[0]! };
  for (const pool of POOLS) {
    const [a, b] = [`this.pool${pool}`, `other.pool${pool}`];
    out[`pool${pool}RateRatio`] = Number((median(rates[a]!) / median(rates[b]!)).toFixed(3));
    out[`pool${pool}CpuRatio`] = Number((median(cpus[a]!) / median(cpus[b]!)).toFixed(3));
    out[`this.pool${pool}`] = Math.round(median(rates[a]!));
    out[`other.pool${pool}`] = Math.round(median(rates[b]!));
    out[`this.pool${pool}.cpuUs`] = Number(median(cpus[a]!).toFixed(1));
    out[`other.pool${pool}.cpuUs`] = Number(median(cpus[b]!).toFixed(1));
  }
  console.log(JSON.stringify(out));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
