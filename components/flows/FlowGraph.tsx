'use client';
// The flow's graph drawn with React Flow: boxes coloured by state (live), laid out left to right by dagre
// (graph.ts), pan and zoom, a minimap; a click on a task opens its page, on a command group its tasks.
import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  MiniMap,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
  type NodeTypes,
} from '@xyflow/react';
import { useRouter } from 'next/navigation';
import { memo, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { formatNumber } from '../format';
import { useIsDesktop } from '../live';
import { cx } from '../ui/cx';
import {
  buildGraph,
  GROUP_BOX,
  layoutKey,
  place,
  TASK_BOX,
  type Box,
  type FlowGraph as Graph,
  type GroupBox,
  type Placed,
  type TaskBox,
} from './graph';
import { FLOW_STATES, STATE_STYLE, type FlowJson } from './types';

type TaskNode = Node<TaskBox, 'task'>;
type GroupNode = Node<GroupBox, 'command'>;

const HANDLE = 'size-1.5! min-h-0! min-w-0! border-0! bg-slate-400!';

const TaskNodeView = memo(function TaskNodeView({ data }: NodeProps<TaskNode>) {
  const st = STATE_STYLE[data.status];
  return (
    <div
      className={cx(
        'flex h-full flex-col justify-center rounded-md border-2 px-2.5 shadow-xs',
        st.box,
        data.status === 'running' && 'animate-pulse',
      )}
      style={{ width: TASK_BOX.width, height: TASK_BOX.height }}
      data-testid="flow-node"
      data-token={data.token}
      data-node={data.label}
      data-status={data.status}
      title={`${data.label} · ${data.command} · ${data.status} · ${data.token}${data.error ? ` — ${data.error}` : ''}`}
    >
      <Handle type="target" position={Position.Left} className={HANDLE} isConnectable={false} />
      <div className="truncate text-xs font-semibold">{data.label}</div>
      <div className="flex items-center justify-between gap-2 text-[10px] opacity-80">
        <span className="truncate font-mono">{data.label === data.command ? data.token.slice(0, 8) : data.command}</span>
        <span className="shrink-0">
          {data.status}
          {data.attempts > 1 && ` ·${data.attempts}`}
        </span>
      </div>
      <Handle type="source" position={Position.Right} className={HANDLE} isConnectable={false} />
    </div>
  );
});

const GroupNodeView = memo(function GroupNodeView({ data }: NodeProps<GroupNode>) {
  const st = STATE_STYLE[data.status];
  return (
    <div
      className={cx('flex h-full flex-col justify-center gap-1 rounded-md border-2 border-dashed px-2.5 shadow-xs', st.box)}
      style={{ width: GROUP_BOX.width, height: GROUP_BOX.height }}
      data-testid="flow-group"
      data-command={data.command}
      data-status={data.status}
      title={`${data.command} ×${formatNumber(data.total)}: ${FLOW_STATES.filter((s) => data.counts[s] > 0)
        .map((s) => `${formatNumber(data.counts[s])} ${s}`)
        .join(' · ')}`}
    >
      <Handle type="target" position={Position.Left} className={HANDLE} isConnectable={false} />
      <div className="flex items-baseline justify-between gap-2">
        <span className="truncate font-mono text-xs font-semibold">{data.command}</span>
        <span className="tabular shrink-0 text-[10px]">×{formatNumber(data.total)}</span>
      </div>
      <div className="flex h-1.5 overflow-hidden rounded-full bg-white/60">
        {FLOW_STATES.map((s) =>
          data.counts[s] > 0 ? (
            <div key={s} className={STATE_STYLE[s].bar} style={{ width: `${(100 * data.counts[s]) / data.total}%` }} />
          ) : null,
        )}
      </div>
      <div className="tabular truncate text-[10px] opacity-80">
        {FLOW_STATES.filter((s) => data.counts[s] > 0)
          .map((s) => `${formatNumber(data.counts[s])} ${s}`)
          .join(' · ')}
      </div>
      <Handle type="source" position={Position.Right} className={HANDLE} isConnectable={false} />
    </div>
  );
});

// `command`, not `group`: React Flow styles its own `group` type
const nodeTypes: NodeTypes = { task: TaskNodeView, command: GroupNodeView };

/** the theme on <html data-theme>, followed as it changes (components/nav/theme.ts) */
function useTheme(): 'light' | 'dark' {
  return useSyncExternalStore(
    (fn) => {
      const o = new MutationObserver(fn);
      o.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
      return () => o.disconnect();
    },
    () => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light'),
    () => 'light',
  );
}

/** Above this many boxes the layout is computed after the page has painted (it takes seconds for 1,000 boxes) */
const DEFER_ABOVE = 300;

/** The layout of the graph's shape: at once for a small graph, after a paint for a big one (null meanwhile). */
function usePlaced(graph: Graph, key: string): Placed | null {
  const inline = graph.boxes.length <= DEFER_ABOVE;
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the shape (layoutKey), not on the states
  const now = useMemo(() => (inline ? place(graph) : null), [key]);
  const [later, setLater] = useState<{ key: string; placed: Placed } | null>(null);
  const latest = useRef(graph);
  latest.current = graph;
  useEffect(() => {
    if (inline) return;
    // the page (header, counts, node list, "laying out…") paints first; the layout follows on this thread
    const timer = setTimeout(() => setLater({ key, placed: place(latest.current) }), 50);
    return () => clearTimeout(timer);
  }, [key, inline]);
  if (inline) return now;
  return later?.key === key ? later.placed : null;
}

export function FlowGraph({ flow, collapse }: { flow: FlowJson; collapse: boolean }) {
  const router = useRouter();
  const theme = useTheme();
  // a phone's graph is drawn anew (fitted to its box) when the window crosses the desktop width
  const desktop = useIsDesktop();
  const graph = useMemo(() => buildGraph(flow, collapse), [flow, collapse]);
  const key = layoutKey(graph);
  // the layout follows the shape only: a poll that changes states keeps every box in place
  const placed = usePlaced(graph, key);
  const big = graph.boxes.length > 200;
  const byId = useMemo(() => new Map(graph.boxes.map((b) => [b.id, b])), [graph]);

  // a box whose state did not change keeps its node object: React Flow redraws only the ones that changed
  const kept = useRef(new Map<string, { node: TaskNode | GroupNode; sig: string }>());
  const nodes = useMemo(() => {
    if (!placed) return [];
    const next = new Map<string, { node: TaskNode | GroupNode; sig: string }>();
    const list = graph.boxes.map((b: Box) => {
      const position = placed.positions.get(b.id) ?? { x: 0, y: 0 };
      const sig = `${JSON.stringify(b)}@${position.x},${position.y}`;
      const old = kept.current.get(b.id);
      const node =
        old?.sig === sig
          ? old.node
          : ({
              id: b.id,
              type: b.kind === 'task' ? 'task' : 'command',
              position,
              data: b,
              draggable: false,
              connectable: false,
              width: b.kind === 'task' ? TASK_BOX.width : GROUP_BOX.width,
              height: b.kind === 'task' ? TASK_BOX.height : GROUP_BOX.height,
            } as TaskNode | GroupNode);
      next.set(b.id, { node, sig });
      return node;
    });
    kept.current = next;
    return list;
  }, [graph, placed]);
  const edges = useMemo<Edge[]>(
    () =>
      graph.links.map((l) => ({
        id: l.id,
        source: l.source,
        target: l.target,
        label: l.count > 1 ? `×${l.count}` : undefined,
        animated: !big && !l.done,
        markerEnd: {
          type: MarkerType.ArrowClosed,
          width: 14,
          height: 14,
          color: l.done ? 'var(--color-emerald-500)' : 'var(--color-slate-400)',
        },
        style: { stroke: l.done ? 'var(--color-emerald-500)' : 'var(--color-slate-400)', strokeWidth: 1.5 },
      })),
    [graph, big],
  );

  if (!placed)
    return (
      <div
        className="flex h-[60vh] min-h-80 w-full items-center justify-center text-sm text-slate-500 sm:h-[65vh]"
        data-testid="flow-graph"
        data-collapsed={collapse ? '1' : '0'}
        data-laying-out="1"
      >
        Laying out {formatNumber(graph.boxes.length)} boxes…
      </div>
    );
  return (
    <div className="h-[60vh] min-h-80 w-full sm:h-[65vh]" data-testid="flow-graph" data-collapsed={collapse ? '1' : '0'}>
      <ReactFlow
        key={`${collapse ? 'collapsed' : 'tasks'}-${desktop ? 'wide' : 'phone'}`}
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        colorMode={theme}
        fitView
        // the first view shows every box, on a phone too (zoom in from there)
        fitViewOptions={{ padding: 0.1, maxZoom: 1.2, minZoom: 0.02 }}
        minZoom={0.02}
        maxZoom={2}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        onlyRenderVisibleElements={big}
        onNodeClick={(_e, n) => {
          const b = byId.get(n.id);
          if (!b) return;
          if (b.kind === 'task') router.push(`/tasks/${b.token}`);
          else router.push(`/tasks?flow=${encodeURIComponent(String(flow.id))}&command=${encodeURIComponent(b.command)}`);
        }}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} />
        <MiniMap
          pannable
          zoomable
          nodeColor={(n) => STATE_STYLE[byId.get(n.id)?.status ?? 'waiting'].fill}
          nodeStrokeWidth={0}
          className="hidden! sm:block!"
          ariaLabel="Overview of the flow"
        />
      </ReactFlow>
    </div>
  );
}
