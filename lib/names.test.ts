// One name per concept. A queue's per-key limit, keyFrom and rate limit are its throttle; "flow" is the
// workflow (a graph of tasks), and nothing else. No tracked file is named, and no source or page says,
// "flow control" for the throttle. Released migrations keep the words they were released with (their text
// is frozen, db/<dialect>/frozen-migrations.test.ts), and the changelog records the rename. The front door
// hands library users no store port: Readpast has no `reads` member (the type-level half is in
// lib/api/typed.test-d.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openReadpast } from './api/open';
import { readModelOf } from './api/readpast';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

/** Released migrations (frozen text) and the changelog (which records the rename) may say the old name. */
const EXEMPT = (path: string) => /^db\/[^/]+\/versions\//.test(path) || path === 'CHANGELOG.md';

/** Paths that name the throttle "flow": the old files' names, wherever they would come back. */
const OLD_FILE = new RegExp(
  [
    '(^|/)flow-control[^/]*$',
    '(^|/)flow-flags\\.ts$',
    '(^|/)metrics-flow\\.ts$',
    '^db/[^/]+/(sql/)?flow\\.ts$',
    '^cli/test/flow\\.ts$',
    '^components/queues/Flow[A-Z]',
  ].join('|'),
);

/** Words that call the throttle "flow": the phrase, and the old identifiers of its code. */
const OLD_WORDS = new RegExp(
  [
    'flow[ -]control',
    'flowControl',
    '\\b(FlowPanel|FlowField|FlowFieldSpec|FlowParse|flowMetrics|flowPatch|flowFlagOf|FLOW_OPTIONS)\\b',
    '\\b(pruneFlow|QUEUE_FLOW|setQueueFlow|QueueFlowChange)\\b',
    'class Flow\\b',
  ].join('|'),
  'i',
);

export function oldFiles(paths: string[]): string[] {
  return paths.filter((p) => !EXEMPT(p) && OLD_FILE.test(p));
}

export function oldWords(path: string, text: string): string[] {
  if (EXEMPT(path) || path === 'lib/names.test.ts') return [];
  return (
    text
      .split('\n')
      .map((line, i) => ({ line, n: i + 1 }))
      // a released migration's file keeps its name (`./versions/v14-flow-control`)
      .filter(({ line }) => OLD_WORDS.test(line) && !/\/versions\/v\d+-/.test(line))
      .map(({ line, n }) => `${path}:${n}: ${line.trim()}`)
  );
}

describe('one name per concept: the throttle is not "flow"', () => {
  it('no tracked file is named for flow control', () => {
    expect(oldFiles(tracked)).toEqual([]);
  });

  it('no source file or page says flow control', () => {
    const texts = tracked.filter((p) => /\.(ts|tsx|mjs|md)$/.test(p));
    expect(texts.flatMap((p) => oldWords(p, readFileSync(join(ROOT, p), 'utf8')))).toEqual([]);
  });

  it('the checks can fail: the old names are found, workflows are not', () => {
    expect(oldFiles(['db/sqlite/flow.ts', 'db/mssql/sql/flow.ts', 'cli/flow-flags.ts', 'components/queues/FlowPanel.tsx'])).toHaveLength(4);
    expect(oldFiles(['db/sqlite/versions/v14-flow-control.ts', 'cli/commands/flow.ts', 'components/flows/FlowGraph.tsx'])).toEqual([]);
    expect(oldWords('README.md', '## Flow control\nsee [flow control](#flow-control)')).toHaveLength(2);
    expect(oldWords('db/sqlite/claim.ts', 'const flow = new Flow(db, now);\nclass Flow {')).toHaveLength(1);
    expect(oldWords('lib/api/flows.ts', 'createFlow(shared, input); // a flow of tasks')).toEqual([]);
    expect(oldWords('db/sqlite/schema.ts', "import { migration as v14 } from './versions/v14-flow-control';")).toEqual([]);
  });
});

describe('the front door hands out no store port', () => {
  it('Readpast has no reads member; its read model is reached only through readModelOf', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rp-names-'));
    const rp = await openReadpast({ url: `sqlite:${join(dir, 'names.db')}` });
    try {
      expect('reads' in rp).toBe(false);
      expect(Object.keys(rp)).not.toContain('reads');
      expect(typeof readModelOf(rp).getTask).toBe('function');
      expect(() => readModelOf({} as typeof rp)).toThrow('not a Readpast');
    } finally {
      await rp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
