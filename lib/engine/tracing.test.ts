// The W3C trace context as readpast stores it: parsed and written back, invalid forms refused, tracestate bounded;
// with no SDK registered an enqueue's send span stores only a given context.
import { describe, expect, it } from 'vitest';
import { cleanTracestate, formatTraceparent, givenTraceContext, parseTraceparent, startSend, traceIdOf } from './tracing';

const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('W3C trace context', () => {
  it('parses and formats a traceparent', () => {
    const sc = parseTraceparent(TP, 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');
    expect(sc).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: true });
    expect(sc!.traceState!.get('congo')).toBe('t61rcWkgMzE');
    expect(formatTraceparent(sc!)).toBe(TP);
    expect(traceIdOf(TP)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    // a later version may carry more fields
    expect(parseTraceparent(`cc-${TP.slice(3)}-extra`)?.spanId).toBe('00f067aa0ba902b7');
  });

  it('refuses what is not one', () => {
    for (const bad of [
      '',
      'garbage',
      TP.toUpperCase(),
      `ff-${TP.slice(3)}`,
      `${TP}-extra`,
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
    ])
      expect(parseTraceparent(bad), bad).toBeNull();
    expect(traceIdOf(null)).toBeNull();
    expect(givenTraceContext(42)).toBeNull();
  });

  it('keeps a tracestate of at most 512 printable characters, drops any other', () => {
    expect(cleanTracestate(' a=b ')).toBe('a=b');
    expect(cleanTracestate('x'.repeat(513))).toBeNull();
    expect(cleanTracestate('a=\u0001')).toBeNull();
    expect(givenTraceContext(TP, 'x'.repeat(600))).toEqual({ traceparent: TP, tracestate: null });
  });

  it('with no SDK: no span; the given context is what a task stores, and none is none', () => {
    expect(startSend('q', 1).trace).toBeNull();
    expect(startSend('q', 1, { traceparent: TP, tracestate: 'a=b' }).trace).toEqual({ traceparent: TP, tracestate: 'a=b' });
  });
});
