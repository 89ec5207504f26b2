// Part of `npm run bench` (alone: BENCH_ONLY=flows npm run bench): the cost of dependencies. A layered DAG of
// 10 layers × 1,000 trivial tasks (each task past the first layer depends on 1–3 tasks of the layer before,
// seeded) against the same 10,000 tasks without dependencies, each on its own SQLite file, drained by a pool of
// 16 with a no-op handler:
//  - drainRatio: the flow's drain rate / the plain tasks' (target ≥ 0.7): what a settle that releases children
//    and a claim that reads parents' results cost;
//  - createRatio: rp.flow's time / enqueueMany's for the same tasks (target ≤ 2): the edges' cost at creation.
// Ratios of runs on the same machine, each side the best of three taken in turns, so neither depends on the
// machine or on a busy moment of it.
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';
import { drainRate } from './bench-drain';
import { edgeCount, layeredDag, nodeId } from './dag';

export const DRAIN_TARGET = 0.7;
export const CREATE_TARGET = 2;

export interface FlowsBench {
  tasks: number;
  edges: number;
  pool: number;
  plainPerSec: number;
  flowPerSec: number;
  /** flowPerSec / plainPerSec (target ≥ drainTarget) */
  drainRatio: number;
  enqueueManyMs: number;
  flowCreateMs: number;
  /** flowCreateMs / enqueueManyMs (target ≤ createTarget) */
  createRatio: number;
  drainTarget: number;
  createTarget: number;
}

interface Run {
  createMs: number;
  perSec: number;
}

/** Creates the tasks (as a flow of `parents`, or without dependencies by enqueueMany) and drains them with a pool. */
async function run(file: string, parents: number[][], asFlow: boolean, pool: number): Promise<Run> {
  const rp = await openReadpast({ url: `sqlite:${file}` });
  try {
    rp.registry.register('bench.noop', () => null);
    const queue = asFlow ? 'flow' : 'plain';
    const task = (i: number) => ({ command: 'bench.noop', queue, payload: { i } });
    // the requests are built before the clock starts: what is timed is the library's work on them
    const nodes = parents.map((ps, i) => ({ id: nodeId(i), ...task(i), ...(ps.length ? { dependsOn: ps.map(nodeId) } : {}) }));
    const tasks = parents.map((_, i) => task(i));
    const t0 = performance.now();
    if (asFlow) await rp.flow({ nodes });
    else await rp.enqueueMany(tasks);
    const createMs = performance.now() - t0;
    return { createMs, perSec: await drainRate(rp, queue, parents.length, pool) };
  } finally {
    await rp.close();
  }
}

export async function benchFlows(dir: string, log: (...a: unknown[]) => void): Promise<FlowsBench> {
  const layers = 10;
  const width = Number(process.env.BENCH_FLOWS_WIDTH ?? 1000);
  const pool = 16;
  const parents = layeredDag(layers, width, 1, 3, 25);
  const tasks = parents.length;
  const edges = edgeCount(parents);
  log(`flows: ${layers} layers × ${width} tasks, ${edges} edges (1–3 parents in the layer before), pool of ${pool}`);
  // throwaway warm-ups of both paths, then each side three times in turns, the best of each
  const warm = layeredDag(layers, 100, 1, 3, 7);
  await run(join(dir, 'flows-warm-plain.db'), warm, false, pool);
  await run(join(dir, 'flows-warm-flow.db'), warm, true, pool);
  let plain: Run = { createMs: Infinity, perSec: 0 };
  let flow: Run = { createMs: Infinity, perSec: 0 };
  const best = (a: Run, b: Run): Run => ({ createMs: Math.min(a.createMs, b.createMs), perSec: Math.max(a.perSec, b.perSec) });
  for (const round of [1, 2, 3]) {
    const p = await run(join(dir, `flows-plain-${round}.db`), parents, false, pool);
    const f = await run(join(dir, `flows-dag-${round}.db`), parents, true, pool);
    log(
      `flows: round ${round}: plain ${Math.round(p.perSec)}/s, created in ${Math.round(p.createMs)} ms; ` +
        `flow ${Math.round(f.perSec)}/s, created in ${Math.round(f.createMs)} ms`,
    );
    plain = best(plain, p);
    flow = best(flow, f);
  }
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const drainRatio = r3(flow.perSec / plain.perSec);
  const createRatio = r3(flow.createMs / plain.createMs);
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  log(`flows: drain without dependencies ${Math.round(plain.perSec)}/s, as a flow ${Math.round(flow.perSec)}/s (best of 3)`);
  log(`flows: drainRatio ${drainRatio} (${verdict(drainRatio >= DRAIN_TARGET)} the target ≥ ${DRAIN_TARGET})`);
  log(`flows: enqueueMany ${Math.round(plain.createMs)} ms, rp.flow ${Math.round(flow.createMs)} ms (best of 3)`);
  log(`flows: createRatio ${createRatio} (${verdict(createRatio <= CREATE_TARGET)} the target ≤ ${CREATE_TARGET})`);
  return {
    tasks,
    edges,
    pool,
    plainPerSec: Math.round(plain.perSec),
    flowPerSec: Math.round(flow.perSec),
    drainRatio,
    enqueueManyMs: Math.round(plain.createMs),
    flowCreateMs: Math.round(flow.createMs),
    createRatio,
    drainTarget: DRAIN_TARGET,
    createTarget: CREATE_TARGET,
  };
}
