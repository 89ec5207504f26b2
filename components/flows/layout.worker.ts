// Lays out a big flow graph (graph.ts place: dagre) off the page's thread: a layout of 1,000 boxes takes
// seconds, during which the page keeps answering. Message in: { key, graph }; out: { key, positions, width, height }.
import { place, type FlowGraph } from './graph';

self.onmessage = (e: MessageEvent<{ key: string; graph: FlowGraph }>) => {
  const p = place(e.data.graph);
  self.postMessage({ key: e.data.key, positions: [...p.positions], width: p.width, height: p.height });
};
