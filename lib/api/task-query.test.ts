import { describe, expect, it } from 'vitest';
import { normalizeJsonPath, parseTaskQuery, taskQueryString } from './task-query';

const fails = (q: string, field: string) => {
  let err: unknown = null;
  try {
    parseTaskQuery(new URLSearchParams(q));
  } catch (e) {
    err = e;
  }
  expect(err, q).toMatchObject({ name: 'ValidationError', field });
};

describe('parseTaskQuery', () => {
  it('reads every filter', () => {
    const f = parseTaskQuery(
      new URLSearchParams(
        'status=pending&sub=scheduled&queue=mail&command=mail.send&batch=3&stage=1&priorityMin=-2&priorityMax=5' +
          '&from=2026-01-01&to=2026-01-02T10:00:00%2B01:00&q=abc&payload=customer.id%3D42&cursor=99&limit=20',
      ),
    );
    expect(f).toEqual({
      status: 'pending',
      sub: 'scheduled',
      queue: 'mail',
      command: 'mail.send',
      batchId: 3,
      stage: 1,
      priorityMin: -2,
      priorityMax: 5,
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-02T09:00:00Z'),
      q: 'abc',
      payload: { path: '$.customer.id', op: 'eq', value: '42' },
      cursor: 99,
      limit: 20,
    });
  });

  it('defaults, ignores empty and unknown parameters, and takes a plain object', () => {
    expect(parseTaskQuery(new URLSearchParams('status=&other=1'))).toEqual({ limit: 50 });
    expect(parseTaskQuery({ status: 'dead', queue: undefined })).toEqual({ status: 'dead', limit: 50 });
    // sub alone implies pending
    expect(parseTaskQuery({ sub: 'ready' })).toMatchObject({ status: 'pending', sub: 'ready' });
  });

  it('reads the waiting status and a flow id (written back as flow=)', () => {
    const f = parseTaskQuery(new URLSearchParams('status=waiting&flow=12'));
    expect(f).toEqual({ status: 'waiting', flowId: 12, limit: 50 });
    expect(taskQueryString(f)).toBe('status=waiting&flow=12');
    expect(parseTaskQuery(new URLSearchParams(taskQueryString(f)))).toEqual(f);
  });

  it('reads the kinds of waiting a durable handler suspends on (sub=sleeping|event), and writes them back', () => {
    const f = parseTaskQuery(new URLSearchParams('sub=sleeping&queue=etl'));
    expect(f).toEqual({ status: 'waiting', suspended: 'sleep', queue: 'etl', limit: 50 });
    expect(parseTaskQuery(new URLSearchParams(taskQueryString(f)))).toEqual(f);
    expect(parseTaskQuery({ status: 'waiting', sub: 'event' })).toEqual({ status: 'waiting', suspended: 'event', limit: 50 });
  });

  it('reads a concurrency key (exact, kept as given) and writes it back as key=', () => {
    const f = parseTaskQuery({ key: 'Acme Corp', queue: 'exports' });
    expect(f).toEqual({ queue: 'exports', concurrencyKey: 'Acme Corp', limit: 50 });
    expect(taskQueryString(f)).toBe('queue=exports&key=Acme+Corp');
    expect(parseTaskQuery(new URLSearchParams(taskQueryString(f)))).toEqual(f);
  });

  it('reads payload filters: equals, contains, $-paths and array steps; the value may hold = and ~', () => {
    expect(parseTaskQuery({ payload: '$.items[0].sku~A-' }).payload).toEqual({ path: '$.items[0].sku', op: 'contains', value: 'A-' });
    expect(parseTaskQuery({ payload: 'a=b=c~d' }).payload).toEqual({ path: '$.a', op: 'eq', value: 'b=c~d' });
    expect(parseTaskQuery({ payload: 'a=' }).payload).toEqual({ path: '$.a', op: 'eq', value: '' });
    expect(normalizeJsonPath('[2].x')).toBe('$[2].x');
  });

  it('refuses a JSON path that could carry anything else', () => {
    for (const bad of ["a')--=1", 'a b=1', '$..a=1', "$.'a'=1", '$[*]=1', 'a.=1', '=1', '$=1', 'a;DROP=1', 'a[x]=1', 'a"=1']) {
      fails(`payload=${encodeURIComponent(bad)}`, 'payload');
    }
    fails('payload=justtext', 'payload');
    fails('payload=a~', 'payload');
  });

  it('names the bad field', () => {
    fails('status=lost', 'status');
    fails('sub=soon', 'sub');
    fails('status=dead&sub=ready', 'sub');
    fails('status=pending&sub=sleeping', 'sub');
    fails('status=waiting&sub=ready', 'sub');
    fails('queue=bad%20name', 'queue');
    fails('batch=0', 'batch');
    fails('flow=0', 'flow');
    fails('flow=1%20OR%201%3D1', 'flow');
    fails('flow=abc', 'flow');
    fails('stage=1', 'stage');
    fails('priorityMin=x', 'priorityMin');
    fails('priorityMin=5&priorityMax=1', 'priorityMax');
    fails('from=yesterday', 'from');
    fails('to=2026-01-01T10:00:00', 'to');
    fails('from=2026-02-01&to=2026-01-01', 'to');
    fails('cursor=-1', 'cursor');
    fails('limit=501', 'limit');
    fails(`q=${'x'.repeat(201)}`, 'q');
    fails(`key=${'k'.repeat(201)}`, 'key');
  });

  it('writes a filter back as a query string that parses to the same filter', () => {
    const q = 'status=dead&queue=mail&payload=%24.customer.id~ac&from=2026-01-01T00%3A00%3A00.000Z&priorityMin=1';
    const f = parseTaskQuery(new URLSearchParams(q));
    expect(parseTaskQuery(new URLSearchParams(taskQueryString(f)))).toEqual(f);
  });
});
