import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '@/lib/engine/errors';
import { describeError, handle, HttpError, intParam, MAX_BODY_BYTES, readJson, readQuery } from './http';

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request('http://127.0.0.1/api/x', {
    method: 'POST',
    body,
    headers,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);

beforeAll(() => {
  process.env.READPAST_LOG_LEVEL = 'silent'; // the 500 case logs on purpose
});

describe('describeError', () => {
  it('maps engine errors to 400 with the field, 404 and 409, by name', () => {
    expect(describeError(new ValidationError('queue', 'bad'))).toEqual({ status: 400, body: { error: 'queue: bad', field: 'queue' } });
    expect(describeError(new NotFoundError('no task'))).toEqual({ status: 404, body: { error: 'no task' } });
    expect(describeError(new ConflictError('finished'))).toEqual({ status: 409, body: { error: 'finished' } });
    // an error thrown by another bundle's copy of the class
    const foreign = Object.assign(new Error('x: y'), { name: 'ValidationError', field: 'x' });
    expect(describeError(foreign).status).toBe(400);
    expect(describeError(new HttpError(413, 'too big', 'body'))).toEqual({ status: 413, body: { error: 'too big', field: 'body' } });
  });

  it('hides unexpected errors behind a 500', () => {
    const r = describeError(new Error('SQLITE_CORRUPT at /secret/path'));
    expect(r.status).toBe(500);
    expect(r.body.error).not.toContain('secret');
  });
});

describe('readJson', () => {
  it('parses JSON', async () => {
    expect(await readJson(post('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
  });

  it('names `body` for malformed or missing JSON', async () => {
    await expect(readJson(post('{"a":'))).rejects.toMatchObject({ name: 'ValidationError', field: 'body' });
    await expect(readJson(post(''))).rejects.toMatchObject({ name: 'ValidationError', field: 'body' });
    await expect(readJson(post(null))).rejects.toMatchObject({ name: 'ValidationError', field: 'body' });
  });

  it('refuses more than 1 MiB, by declared length and by counting a stream', async () => {
    await expect(readJson(post('{}', { 'content-length': String(MAX_BODY_BYTES + 1) }))).rejects.toMatchObject({ status: 413 });
    const chunk = new Uint8Array(64 * 1024).fill(32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent > MAX_BODY_BYTES * 2) return c.close();
        sent += chunk.byteLength;
        c.enqueue(chunk);
      },
    });
    await expect(readJson(post(stream))).rejects.toMatchObject({ status: 413 });
    expect(sent).toBeLessThan(MAX_BODY_BYTES * 2); // stopped reading early
  });
});

describe('readQuery and handle', () => {
  const schema = z.object({ minutes: intParam(1, 60).default(15), q: z.string().optional() });

  it('applies defaults, ignores empty and unknown parameters, names a bad one', async () => {
    expect(readQuery(new Request('http://h/x?q=&other=1'), schema)).toEqual({ minutes: 15 });
    expect(readQuery(new Request('http://h/x?minutes=5&q=abc'), schema)).toEqual({ minutes: 5, q: 'abc' });
    const res = await handle(async (req: Request) => Response.json(readQuery(req, schema)))(new Request('http://h/x?minutes=61'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: 'minutes' });
  });

  it('states the bound in plain words', () => {
    const message = (url: string, s: z.ZodType = schema) => {
      try {
        readQuery(new Request(url), s);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(message('http://h/x?minutes=61')).toBe('minutes: at most 60');
    expect(message('http://h/x?minutes=0')).toBe('minutes: at least 1');
    expect(message('http://h/x?minutes=soon')).toBe('minutes: must be an integer from 1 to 60');
    const ids = z.object({ cursor: intParam(1, Number.MAX_SAFE_INTEGER).optional() });
    expect(message('http://h/x?cursor=-4', ids)).toBe('cursor: must be a positive integer');
    expect(message('http://h/x?cursor=99999999999999999999', ids)).toBe('cursor: too large');
  });
});
