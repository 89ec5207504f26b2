import { layeredDag } from './dag';
import { validateFlow } from '../lib/engine/flows';
const parents = layeredDag(10, 1000, 1, 3, 25);
const nodeId = (i: number) => `n${i}`;
const ctx = { kinds: ['handler', 'sql'] as const, knowsHandler: () => true, caller: null };
const task = (i: number) => ({ command: 'bench.noop', queue: 'q', payload: { i } });
let tot = 0;
for (let round = 0; round < 30; round++) {
  const nodes = parents.map((ps, i) => ({ id: nodeId(i), ...task(i), ...(ps.length ? { dependsOn: ps.map(nodeId) } : {}) }));
  const t = performance.now();
  await validateFlow({ nodes }, ctx as any);
  if (round >= 10) tot += performance.now() - t;
}
console.log('avg', (tot / 20).toFixed(1));
