// Store composition: a port method is a concern module's function with the store's shared state (its
// connection or pool, its transaction runner) bound as the first argument. Each concern module lists the
// port methods it implements as a slice (`export const readSlice = { … } satisfies Slice<Shared, ReadModel>`:
// a wrong name or signature does not compile); the store merges the slices of its modules (slicesOf) and
// binds them into each port (bindPort: a method missing from them does not compile). Adding a store
// method: the port's line, and in each dialect the function and its name in its module's slice.

/** A port's methods, each taking the store's shared state `S` first. */
export type Unbound<S, P> = {
  [K in keyof P]: P[K] extends (...args: infer A) => infer R ? (shared: S, ...args: A) => R : never;
};

/** The part of port `P` one concern module implements. */
export type Slice<S, P> = Partial<Unbound<S, P>>;

/** Port `P` from the functions that implement it, `shared` bound as their first argument. */
export function bindPort<P, S>(shared: S, fns: Unbound<S, P>): P {
  const port: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(fns as Record<string, (shared: S, ...args: unknown[]) => unknown>)) {
    port[name] = fn.bind(undefined, shared);
  }
  return port as P;
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * The slices named `key` of `modules` (concern modules: `import * as m`), merged; a module without one adds
 * nothing. A method two modules both implement is refused (the types would not say which one binds).
 */
export function slicesOf<K extends string, M extends object>(
  key: K,
  modules: readonly M[],
): Intersection<M extends Record<K, infer T> ? T : never> {
  const merged: Record<string, unknown> = {};
  for (const m of modules) {
    for (const [name, fn] of Object.entries((m as Partial<Record<K, object>>)[key] ?? {})) {
      if (name in merged) throw new Error(`${key}: ${name} is implemented by two concern modules`);
      merged[name] = fn;
    }
  }
  return merged as Intersection<M extends Record<K, infer T> ? T : never>;
}
