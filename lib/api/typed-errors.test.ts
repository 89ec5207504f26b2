// What a team sees when it gets a typed command wrong (lib/api/typed.ts): the TypeScript checker run on a
// snippet that uses the library, and its diagnostics read. Each mistake must be reported at the field that is
// wrong — the payload's field, or the command, with the declared commands listed — and never as the mismatch
// of another shape of task ("not assignable to parameter of type 'SqlTask'. Property 'kind' is missing", as
// overloaded signatures reported it). For enqueue, flow nodes, and both inside a transaction.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'readpast-typed-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lines of the snippet, each a mistake (or none) — its diagnostics are looked up by the marker at its end. */
const SNIPPET = `import { openReadpast } from ${JSON.stringify(join(ROOT, 'lib/api/index'))};
const rp = await openReadpast({
  handlers: {
    'billing.invoice': async (p: { id: number; lines: string[] }) => ({ invoiced: p.id }),
    'cache.flush': () => 'flushed',
  },
});
await rp.enqueue({ command: 'billing.invoice', payload: { id: 42, lines: ['a'] } }); // ok-enqueue
await rp.enqueue({ kind: 'sql', command: 'SELECT 1' }); // ok-sql
await rp.enqueue({ command: 'billing.invoice', payload: { id: '42', lines: [] } }); // payload-type
await rp.enqueue({ command: 'billing.invoice', payload: { id: 42, line: [] } }); // payload-field
await rp.enqueue({ command: 'billing.refund', payload: { id: 42 } }); // unknown-command
await rp.enqueue({ command: 'cache.flush', queu: 'x' }); // unknown-option
await rp.flow({ nodes: [ // ok-flow
  { id: 'a', command: 'billing.invoice', payload: { id: 1, lines: [] } }, // ok-flow
  { id: 'b', command: 'cache.flush', dependsOn: ['a'] }, // ok-flow
  { id: 'c', kind: 'sql', command: 'SELECT 1' }, // ok-flow
] }); // ok-flow
await rp.flow({ nodes: [ // flow-payload
  { id: 'a', command: 'cache.flush' }, // flow-payload
  { id: 'b', command: 'billing.invoice', payload: { id: '1', lines: [] } }, // flow-payload
] }); // flow-payload
await rp.flow({ nodes: [{ id: 'a', command: 'billing.refund' }] }); // flow-command
await rp.flow({ nodes: [{ id: 'a', command: 'cache.flush', dedupKey: 'k' }] }); // flow-field
await rp.withTransaction(async (tx) => {
  await tx.enqueue({ command: 'billing.refund' }); // tx-command
  await tx.flow({ nodes: [{ id: 'a', command: 'billing.invoice', payload: { id: '1', lines: [] } }] }); // tx-flow-payload
});
`;

interface Reported {
  /** the source text the diagnostic points at */
  at: string;
  code: number;
  /** its message chain and related information, flattened */
  text: string;
}

const byMarker = new Map<string, Reported[]>();

beforeAll(() => {
  const file = join(dir, 'snippet.ts');
  writeFileSync(file, SNIPPET);
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([file], { ...options, noEmit: true, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 });
  const source = program.getSourceFile(file)!;
  for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
    const { line } = source.getLineAndCharacterOfPosition(d.start!);
    const lineText = SNIPPET.split('\n')[line]!;
    const marker = /\/\/ (\S+)$/.exec(lineText)?.[1] ?? `line ${line + 1}`;
    const related = (d.relatedInformation ?? []).map((r) => ts.flattenDiagnosticMessageText(r.messageText, '\n'));
    const text = [ts.flattenDiagnosticMessageText(d.messageText, '\n'), ...related].join('\n');
    byMarker.set(marker, [...(byMarker.get(marker) ?? []), { at: SNIPPET.slice(d.start!, d.start! + d.length!), code: d.code, text }]);
  }
}, 120_000);

/** The one diagnostic of the line marked `marker`. */
function reported(marker: string): Reported {
  const found = byMarker.get(marker) ?? [];
  expect(found, `${marker}: ${JSON.stringify(found, null, 2)}`).toHaveLength(1);
  const r = found[0]!;
  // never "No overload matches this call", never about a sql task
  expect(r.code, r.text).not.toBe(2769);
  expect(r.text).not.toMatch(/SqlTask|Property 'kind' is missing/);
  return r;
}

const DECLARED = /"billing\.invoice" \| "cache\.flush" \| "demo\.sleep"/;

describe('a mistake in a typed command is reported at its field', () => {
  it('correct calls compile', () => {
    for (const m of ['ok-enqueue', 'ok-sql', 'ok-flow']) expect(byMarker.get(m), m).toBeUndefined();
    expect([...byMarker.keys()].filter((k) => k.startsWith('line '))).toEqual([]);
  });

  it("enqueue: the payload's field, with the type its handler wants", () => {
    const wrongType = reported('payload-type');
    expect(wrongType.at).toBe('id');
    expect(wrongType.text).toMatch(/Type 'string' is not assignable to type 'number'/);
    expect(wrongType.text).toMatch(/The expected type comes from property 'id'/);
    const wrongField = reported('payload-field');
    expect(wrongField.at).toBe('line');
    expect(wrongField.text).toMatch(/'line' does not exist in type '\{ id: number; lines: string\[\]; \}'/);
  });

  it('enqueue: an unknown command, named with the declared ones; an unknown option', () => {
    const command = reported('unknown-command');
    expect(command.at).toBe('command');
    expect(command.text).toMatch(/Type '"billing\.refund"' is not assignable to type /);
    expect(command.text).toMatch(DECLARED);
    expect(command.text).toMatch(/The expected type comes from property 'command'/);
    expect(reported('unknown-option').text).toMatch(/'queu' does not exist .* Did you mean to write 'queue'\?/);
  });

  it("flow: a node's payload field, an unknown command, a field a node does not take", () => {
    const payload = reported('flow-payload');
    expect(payload.at).toBe('id');
    expect(payload.text).toMatch(/Type 'string' is not assignable to type 'number'/);
    const command = reported('flow-command');
    expect(command.at).toBe('command');
    expect(command.text).toMatch(/Type '"billing\.refund"' is not assignable/);
    expect(command.text).toMatch(DECLARED);
    const field = reported('flow-field');
    expect(field.at).toBe('dedupKey');
    expect(field.text).toMatch(/'dedupKey' does not exist in type/);
  });

  it('in a transaction, as on the Readpast', () => {
    const command = reported('tx-command');
    expect(command.at).toBe('command');
    expect(command.text).toMatch(DECLARED);
    expect(reported('tx-flow-payload').at).toBe('id');
  });
});
