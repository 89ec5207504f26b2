// The port binder: a concern module's functions become the port's methods with the store's shared state
// bound first; slices merge, and a method two modules implement is refused.
import { describe, expect, it } from 'vitest';
import { bindPort, slicesOf, type Slice } from './bind';

interface Port {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
}
type Shared = { data: Map<string, string> };

const reads = { readSlice: { get: async (s: Shared, key: string) => s.data.get(key) ?? null } satisfies Slice<Shared, Port> };
const writes = {
  readSlice: {
    put: async (s: Shared, key: string, value: string) => {
      s.data.set(key, value);
    },
  } satisfies Slice<Shared, Port>,
};

describe('bindPort and slicesOf', () => {
  it('binds the shared state as the first argument of every method', async () => {
    const shared: Shared = { data: new Map() };
    const port = bindPort<Port, Shared>(shared, slicesOf('readSlice', [reads, writes]));
    await port.put('a', '1');
    expect(await port.get('a')).toBe('1');
    expect(await port.get('b')).toBeNull();
    expect(Object.keys(port).sort()).toEqual(['get', 'put']);
  });

  it('skips a module without the slice and refuses a method two modules implement', () => {
    expect(Object.keys(slicesOf('readSlice', [reads, { other: 1 }, writes])).sort()).toEqual(['get', 'put']);
    expect(() => slicesOf('readSlice', [reads, writes, reads])).toThrow('readSlice: get is implemented by two concern modules');
  });
});
