// validateEnqueueMany answers exactly as validateEnqueue does, task by task: the same EnqueueInput for what is
// accepted (whether the fast path or the schema took it), the same field and message for what is refused.
import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import { validateEnqueue, type EnqueueContext } from './validation';
import { validateEnqueueMany } from './validation-bulk';

const ctx = (over: Partial<EnqueueContext> = {}): EnqueueContext => ({
  kinds: ['handler', 'sql'],
  knowsHandler: (name) => name !== 'nope' && (name === 'remote.one' ? Promise.resolve(true) : true),
  caller: 'tests',
  ...over,
});

const cases: unknown[] = [
  { command: 'demo.echo' },
  { command: 'demo.echo', payload: { a: 1 }, queue: 'emails', priority: 5, maxAttempts: 3, timeoutMs: 1000, dedupKey: 'k' },
  { command: 'demo.echo', payload: null, priority: 0, queue: undefined },
  { command: 'demo.echo', batchId: 4 },
  { command: 'demo.echo', batchId: 4, stage: 2 },
  { kind: 'handler', command: 'remote.one' },
  { kind: 'sql', command: 'SELECT 1' },
  { command: 'demo.echo', runAt: '2030-01-01T00:00:00Z' },
  { command: ' demo.echo ' },
  { command: '' },
  { command: 'nope' },
  { command: 'demo.echo', extra: 1 },
  { command: 'demo.echo', queue: 'bad queue' },
  { command: 'demo.echo', priority: 1.5 },
  { command: 'demo.echo', priority: 100_000 },
  { command: 'demo.echo', maxAttempts: 0 },
  { command: 'demo.echo', timeoutMs: -1 },
  { command: 'demo.echo', dedupKey: '' },
  { command: 'demo.echo', dedupKey: 'x'.repeat(201) },
  { command: 'demo.echo', concurrencyKey: 'acme' },
  { command: 'demo.echo', concurrencyKey: '' },
  { command: 'demo.echo', concurrencyKey: 'x'.repeat(201) },
  { command: 'demo.echo', concurrencyKey: 7 },
  { command: 'demo.echo', batchId: 0 },
  { command: 'demo.echo', stage: 1 },
  { command: 'demo.echo', payload: { big: 'x'.repeat(300 * 1024) } },
  { command: 'demo.echo', payload: 10n },
  { kind: 'procedure', command: 'dbo.p' },
  { command: 42 },
  null,
  'text',
  [],
];

async function single(raw: unknown, c: EnqueueContext, prefix: string) {
  try {
    return { ok: await validateEnqueue(raw, c, prefix) };
  } catch (err) {
    return { err: err instanceof ValidationError ? { field: err.field, message: err.message } : String(err) };
  }
}

async function many(raws: unknown[], c: EnqueueContext) {
  try {
    return { ok: await validateEnqueueMany(raws, c, 'tasks') };
  } catch (err) {
    return { err: err instanceof ValidationError ? { field: err.field, message: err.message } : String(err) };
  }
}

describe('validateEnqueueMany', () => {
  it('answers each task as validateEnqueue does', async () => {
    for (const c of [ctx(), ctx({ kinds: ['handler'] }), ctx({ allowSql: false, caller: null })]) {
      for (const raw of cases) {
        const one = await single(raw, c, 'tasks.1');
        const got = await many([{ command: 'demo.echo' }, raw], c);
        if ('ok' in one) {
          expect(got).toHaveProperty('ok');
          expect((got as { ok: unknown[] }).ok[1]).toEqual(one.ok);
        } else expect(got).toEqual(one);
      }
    }
  });

  it('asks whether a handler is known once per name', async () => {
    let asked = 0;
    const c = ctx({ knowsHandler: () => (asked++, true) });
    const out = await validateEnqueueMany(
      Array.from({ length: 50 }, (_, i) => ({ command: 'demo.echo', payload: { i } })),
      c,
      'tasks',
    );
    expect(out).toHaveLength(50);
    expect(asked).toBe(1);
    expect(out[7]).toEqual(await validateEnqueue({ command: 'demo.echo', payload: { i: 7 } }, c));
  });
});
