// Bad input → the message every surface shows (the HTTP API, server actions, the CLI and library users get
// these from the same front door): the field, then what it must be in plain words with its real bound —
// never zod's internals (Number.MAX_SAFE_INTEGER, "Invalid option", "expected int").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../engine/errors';
import { openReadpast } from './open';
import type { Readpast } from './readpast';

let dir: string;
let rp: Readpast;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-messages-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'm.db')}` });
  await rp.enqueue({ command: 'demo.echo', queue: 'known' });
});
afterAll(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const task = (extra: Record<string, unknown>) => ({ command: 'demo.echo', ...extra });
const node = (id: string, dependsOn?: string[]) => ({ id, command: 'demo.echo', ...(dependsOn ? { dependsOn } : {}) });

const CASES: [string, () => Promise<unknown>, string][] = [
  ['maxAttempts past the safe integers', () => rp.enqueue(task({ maxAttempts: 1e20 })), 'maxAttempts: at most 100'],
  ['maxAttempts too big', () => rp.enqueue(task({ maxAttempts: 101 })), 'maxAttempts: at most 100'],
  ['maxAttempts zero', () => rp.enqueue(task({ maxAttempts: 0 })), 'maxAttempts: at least 1'],
  ['maxAttempts a fraction', () => rp.enqueue(task({ maxAttempts: 1.5 })), 'maxAttempts: must be a whole number from 1 to 100'],
  ['maxAttempts a string', () => rp.enqueue(task({ maxAttempts: 'x' })), 'maxAttempts: must be a whole number from 1 to 100'],
  ['priority far below', () => rp.enqueue(task({ priority: -1e20 })), 'priority: at least -1000'],
  ['timeoutMs a string', () => rp.enqueue(task({ timeoutMs: '5s' })), 'timeoutMs: must be a whole number from 1 to 604800000'],
  ['stage past its bound', () => rp.enqueue(task({ batchId: 1, stage: 1e6 })), 'stage: at most 10000'],
  ['batchId negative', () => rp.enqueue(task({ batchId: -1 })), `batchId: at least 1`],
  ['kind unknown', () => rp.enqueue(task({ kind: 'shell' })), 'kind: must be one of handler, sql, procedure'],
  [
    'runAt not a date',
    () => rp.enqueue(task({ runAt: 'tomorrow' })),
    'runAt: must be an ISO-8601 date and time with its offset (e.g. 2026-01-05T10:00:00Z)',
  ],
  ['dedupKey empty', () => rp.enqueue(task({ dedupKey: '' })), 'dedupKey: must not be empty'],
  ['dedupKey a number', () => rp.enqueue(task({ dedupKey: 7 })), 'dedupKey: must be a string'],
  ['an unknown field', () => rp.enqueue(task({ retries: 3 })), 'retries: unknown field'],
  ['not an object', () => rp.enqueue(null), 'body: must be an object'],
  [
    'limit a string',
    () => rp.setQueue('known', { concurrencyLimit: 'x' }, 't'),
    'concurrencyLimit: must be a whole number from 1 to 10000 (or null)',
  ],
  ['limit past the safe integers', () => rp.setQueue('known', { concurrencyLimit: 1e20 }, 't'), 'concurrencyLimit: at most 10000'],
  ['paused a string', () => rp.setQueue('known', { paused: 'yes' }, 't'), 'paused: must be true or false'],
  ['concurrencyKey empty', () => rp.enqueue(task({ concurrencyKey: '' })), 'concurrencyKey: must not be empty'],
  ['concurrencyKey too long', () => rp.enqueue(task({ concurrencyKey: 'k'.repeat(201) })), 'concurrencyKey: at most 200 characters'],
  ['perKeyLimit 0', () => rp.setQueue('known', { perKeyLimit: 0 }, 't'), 'perKeyLimit: at least 1'],
  [
    'keyFrom not a path',
    () => rp.setQueue('known', { keyFrom: 'customerId' }, 't'),
    'keyFrom: must be a JSON path like $.customerId or $.order.tenant or $.items[0].id',
  ],
  ['rateLimit without a period', () => rp.setQueue('known', { rateLimit: { limit: 5 } }, 't'), 'rateLimit.periodSeconds: required'],
  [
    'rateLimit perKey a string',
    () => rp.setQueue('known', { rateLimit: { limit: 5, periodSeconds: 1, perKey: 'yes' } }, 't'),
    'rateLimit.perKey: must be true or false',
  ],
  [
    'rateLimit period past a day',
    () => rp.setQueue('known', { rateLimit: { limit: 5, periodSeconds: 86_401 } }, 't'),
    'rateLimit.periodSeconds: at most 86400',
  ],
  [
    'rateLimit text unreadable',
    () => rp.setQueue('known', { rateLimit: '20 a minute' }, 't'),
    'rateLimit: must be LIMIT/PERIOD, e.g. 60/1m, 20/2s or 1000/1h (or none)',
  ],
  ['maxParallel huge', () => rp.createBatch({ maxParallel: 1e20 }), 'maxParallel: at most 10000'],
  ['onFailure unknown', () => rp.createBatch({ onFailure: 'stop' }), 'onFailure: must be one of continue, abort'],
  ['a flow with a cycle', () => rp.flow({ nodes: [node('a', ['b']), node('b', ['a'])] }), 'nodes: cycle: b → a → b'],
  ['a flow node on itself', () => rp.flow({ nodes: [node('a', ['a'])] }), 'nodes.0.dependsOn.0: node "a" depends on itself'],
  ['a flow node on an unknown id', () => rp.flow({ nodes: [node('a', ['zz'])] }), 'nodes.0.dependsOn.0: no node with id "zz" in this flow'],
  [
    'a flow of 10,001 nodes',
    () => rp.flow({ nodes: Array.from({ length: 10_001 }, (_, i) => node(`n${i}`)) }),
    'nodes: at most 10000 items',
  ],
  ['a flow node id with SQL', () => rp.flow({ nodes: [node("a';--")] }), 'nodes.0.id: letters, digits and . _ : - (1 to 100 characters)'],
  ['dependsOn not a list', () => rp.enqueue(task({ dependsOn: 'x' })), 'dependsOn: must be a list'],
  ['onParentFailure alone', () => rp.enqueue(task({ onParentFailure: 'run' })), 'onParentFailure: needs dependsOn'],
  [
    'a dependency with a bad policy',
    () => rp.flow({ nodes: [node('a'), { ...node('b'), dependsOn: [{ id: 'a', onParentFailure: 'explode' }] }] }),
    'nodes.1.dependsOn.0.onParentFailure: must be one of cancel, run, wait',
  ],
  [
    'a dependency with an unknown field',
    () => rp.enqueue(task({ dependsOn: [{ token: '00000000-0000-4000-8000-000000000000', policy: 'run' }] })),
    'dependsOn.0.policy: unknown field',
  ],
  ['a dependency of the wrong type', () => rp.enqueue(task({ dependsOn: [7] })), 'dependsOn.0: not a task token (uuid)'],
  ['a flow id not a number', () => rp.getFlow('x'), 'flowId: not a flow id (a positive whole number)'],
];

describe('bad input → message', () => {
  it.each(CASES)('%s', async (_what, call, message) => {
    const err = await call().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe(message);
  });

  it('no message names zod internals', async () => {
    for (const [, call] of CASES) {
      const m = await call().then(
        () => '',
        (e: unknown) => (e as Error).message,
      );
      expect(m).not.toMatch(/9007199254740991|Invalid|expected|received|Too (big|small)/);
    }
  });

  it('one queue that does not exist is not found, whatever is asked of it', async () => {
    await expect(rp.tokens('nosuch')).rejects.toThrow(NotFoundError);
    await expect(rp.tokens('nosuch')).rejects.toThrow('no queue nosuch');
    await expect(rp.queueChanges('nosuch', 5)).rejects.toThrow(NotFoundError);
    await expect(rp.queue('nosuch')).rejects.toThrow(NotFoundError);
    expect(await rp.tokens('known')).toEqual([]);
    expect(await rp.queueChanges('known', 5)).toEqual([]);
  });
});
