// Seeded dependency graphs for the workflow bench (bin/bench-flows.ts) and the process test
// (cli/test/workflows.test.ts): a graph is each node's parents, as indexes of earlier nodes (so the index order
// is topological), with the node ids a flow gives them.

/** mulberry32: a small seedable generator of numbers in [0, 1) — the same seed, the same graph */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct numbers drawn from [from, to) (all of them when the range is smaller), ascending */
function distinct(rand: () => number, from: number, to: number, count: number): number[] {
  const picked = new Set<number>();
  const want = Math.min(count, to - from);
  while (picked.size < want) picked.add(from + Math.floor(rand() * (to - from)));
  return [...picked].sort((a, b) => a - b);
}

/**
 * `n` nodes; node i has 0..maxFanIn parents (uniformly), drawn among the `window` nodes before it (all earlier
 * nodes when fewer): a window keeps the graph deep and its ready frontier narrow, as a pipeline's is.
 */
export function randomDag(n: number, maxFanIn: number, seed: number, window = n): number[][] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => distinct(rand, Math.max(0, i - window), i, Math.floor(rand() * (maxFanIn + 1))));
}

/** `layers` × `width` nodes; each node past the first layer has minFanIn..maxFanIn parents in the layer before */
export function layeredDag(layers: number, width: number, minFanIn: number, maxFanIn: number, seed: number): number[][] {
  const rand = prng(seed);
  return Array.from({ length: layers * width }, (_, i) => {
    const layer = Math.floor(i / width);
    if (layer === 0) return [];
    const count = minFanIn + Math.floor(rand() * (maxFanIn - minFanIn + 1));
    return distinct(rand, (layer - 1) * width, layer * width, count);
  });
}

/** the id of node i in a flow: n0000, n0001, … */
export const nodeId = (i: number): string => `n${String(i).padStart(4, '0')}`;

/** the number of edges of a graph */
export const edgeCount = (parents: number[][]): number => parents.reduce((s, p) => s + p.length, 0);
