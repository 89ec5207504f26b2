// bin/dts-optional.mjs: the package's declarations read under exactOptionalPropertyTypes as readpast means them.
import { describe, expect, it } from 'vitest';
import { optionalsTakeUndefined } from './dts-optional.mjs';

describe('optionalsTakeUndefined', () => {
  it('adds | undefined to optional properties of interfaces, type literals (nested) and classes', () => {
    const before = `interface OpenOptions {
  /** where */
  url?: string;
  handlers?: H;
  nested?: { a?: number; b: string };
  required: string;
}
type T = { x?: Record<string, { y?: boolean }> };
declare class C {
  readonly registry?: Registry;
  method(arg?: string): void;
}`;
    const { text, changed } = optionalsTakeUndefined(before);
    expect(text).toBe(`interface OpenOptions {
  /** where */
  url?: string | undefined;
  handlers?: H | undefined;
  nested?: { a?: number | undefined; b: string } | undefined;
  required: string;
}
type T = { x?: Record<string, { y?: boolean | undefined }> | undefined };
declare class C {
  readonly registry?: Registry | undefined;
  method(arg?: string): void;
}`);
    expect(changed).toBe(7);
  });

  it('puts a function or conditional type in parentheses first', () => {
    expect(optionalsTakeUndefined('type O = { f?: (x: number) => void; c?: A extends B ? C : D; n?: new () => X };').text).toBe(
      'type O = { f?: ((x: number) => void) | undefined; c?: (A extends B ? C : D) | undefined; n?: (new () => X) | undefined };',
    );
  });

  it('leaves alone what takes undefined already, and is idempotent', () => {
    const done = 'type O = { a?: string | undefined; b?: unknown; c?: any; d?: (undefined | number) };';
    expect(optionalsTakeUndefined(done)).toEqual({ text: done, changed: 0 });
    const once = optionalsTakeUndefined('type O = { a?: string; f?: () => void };').text;
    expect(optionalsTakeUndefined(once)).toEqual({ text: once, changed: 0 });
  });
});
