// Strings that are not Unicode from the command line: argv cannot carry a lone surrogate (bytes that are not
// UTF-8 arrive as U+FFFD), but JSON can, as an escape — a payload, a flow file. Refused: exit 2 and one line
// naming the field (lib/engine/text.ts); nothing is written.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliOk, tempDb } from './helpers';

const db = tempDb();
afterAll(() => db.cleanup());

describe('a lone surrogate in JSON given to the CLI', () => {
  it('enqueue --payload: exit 2 naming payload.who; flow create FILE: exit 2 naming the node field', async () => {
    const enqueue = await cli(['enqueue', '--handler', 'demo.echo', '--payload', '{"who":["ok","a\\ud800b"]}'], db);
    expect(enqueue.code, enqueue.stderr).toBe(2);
    expect(enqueue.stderr.trim()).toBe(
      'readpast enqueue: payload.who.1: not well-formed Unicode: a lone surrogate (\\ud800) at character 2',
    );

    const file = join(db.dir, 'flow.json');
    writeFileSync(file, '{"name":"nightly","nodes":[{"id":"a","command":"demo.echo","concurrencyKey":"k\\udc00"}]}');
    const flow = await cli(['flow', 'create', file], db);
    expect(flow.code, flow.stderr).toBe(2);
    expect(flow.stderr).toContain('nodes.0.concurrencyKey: not well-formed Unicode: a lone surrogate (\\udc00) at character 2');

    expect(JSON.parse(await cliOk(['stats', '--json'], db)).totals.pending).toBe(0);
  });
});
