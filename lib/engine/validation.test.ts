import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import { backoffDelay, errorInfo, failureSettlement, MAX_BACKOFF_MS } from './retry';
import { MAX_PAYLOAD_BYTES, validateEnqueue } from './validation';

const ctx = { kinds: ['handler', 'sql'] as const, knowsHandler: (n: string) => n.startsWith('demo.') };

async function fieldOf(raw: unknown, c: Parameters<typeof validateEnqueue>[1] = ctx): Promise<string> {
  try {
    await validateEnqueue(raw, c);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('accepted');
}

describe('enqueue validation', () => {
  it('fills defaults and keeps the payload', async () => {
    const r = await validateEnqueue({ command: 'demo.echo', payload: { a: 1 }, runAt: '2030-01-01T00:00:00.000Z' }, ctx);
    expect(r).toMatchObject({ kind: 'handler', command: 'demo.echo', payload: { a: 1 }, queue: 'default', priority: 0 });
    expect(r.runAt?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });

  it('a handler is known at once (the local registry) or once a promise says so (the names workers registered)', async () => {
    const known = (local: string[], remote: string[]) => ({
      ...ctx,
      knowsHandler: (n: string) => local.includes(n) || Promise.resolve(remote.includes(n)),
    });
    const c = known(['a.local'], ['b.remote']);
    expect((await validateEnqueue({ command: 'a.local' }, c)).command).toBe('a.local');
    expect((await validateEnqueue({ command: 'b.remote' }, c)).command).toBe('b.remote');
    expect(await fieldOf({ command: 'c.nowhere' }, c)).toBe('command');
    expect(await fieldOf({ command: 'x.y' }, { ...ctx, knowsHandler: () => false })).toBe('command');
  });

  it('names the field of each bad input', async () => {
    expect(await fieldOf({ command: 'other.nope' })).toBe('command');
    expect(await fieldOf({})).toBe('command');
    expect(await fieldOf({ command: 'demo.echo', priority: 'high' })).toBe('priority');
    expect(await fieldOf({ command: 'demo.echo', priority: 1.5 })).toBe('priority');
    expect(await fieldOf({ command: 'demo.echo', queue: "x'; DROP TABLE Tasks;--" })).toBe('queue');
    expect(await fieldOf({ command: 'demo.echo', maxAttempts: 0 })).toBe('maxAttempts');
    expect(await fieldOf({ command: 'demo.echo', runAt: 'tomorrow' })).toBe('runAt');
    expect(await fieldOf({ command: 'demo.echo', surprise: true })).toBe('surprise');
    expect(await fieldOf({ command: 'demo.echo', payload: { big: 'x'.repeat(MAX_PAYLOAD_BYTES) } })).toBe('payload');
    expect(await fieldOf({ kind: 'procedure', command: 'dbo.p' })).toBe('kind');
    expect(await fieldOf({ kind: 'sql', command: 'select 1' }, { ...ctx, allowSql: false })).toBe('kind');
    expect(await fieldOf('not an object')).toBe('body');
  });

  it('prefixes the index of a bulk item', async () => {
    await expect(validateEnqueue({ command: 'x.y' }, ctx, 'tasks.3')).rejects.toMatchObject({ field: 'tasks.3.command' });
  });
});

describe('retry policy', () => {
  it('grows exponentially with bounded jitter and a cap', () => {
    expect(backoffDelay(1, 1000, () => 0)).toBe(750);
    expect(backoffDelay(1, 1000, () => 1)).toBe(1250);
    expect(backoffDelay(3, 1000, () => 0.5)).toBe(4000);
    expect(backoffDelay(40, 1000, () => 1)).toBe(MAX_BACKOFF_MS);
  });

  it('retries until attempts are used up, never when not retryable', () => {
    const e = errorInfo(Object.assign(new Error('boom'), { number: 1205 }));
    expect(e).toMatchObject({ number: 1205, message: 'boom' });
    expect(failureSettlement('failed', e, 1, 3, 1000).kind).toBe('retry');
    expect(failureSettlement('failed', e, 3, 3, 1000).kind).toBe('dead');
    expect(failureSettlement('failed', e, 1, 3, 1000, false).kind).toBe('dead');
  });
});
