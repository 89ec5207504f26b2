// For the tests that walk every string field of a request with a lone surrogate (lib/engine/text.ts): where
// the strings of a valid request are, and the request with one of them made ill-formed.

export type Path = (string | number)[];

/** The path of every string in `value` (arrays and plain objects entered), in document order. */
export function stringPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...path, i]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...path, k]));
  return [];
}

/** A deep copy of `value` whose string at `path` has a lone surrogate (U+D800) after its first character. */
export function withLoneSurrogate<T>(value: T, path: Path): T {
  const copy = structuredClone(value);
  if (path.length === 0) return spoil(copy as string) as T;
  let at: Record<string | number, unknown> = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  at[last] = spoil(at[last] as string);
  return copy;
}

const spoil = (s: string) => `${s.slice(0, 1)}\ud800${s.slice(1)}`;

/** How a refusal names the field at `path` (under `prefix`). */
export const fieldOf = (path: Path, prefix = '') => [prefix, ...path.map(String)].filter(Boolean).join('.');

/** The words of the refusal (text.ts illFormedMessage). */
export const ILL_FORMED = /not well-formed Unicode: a lone surrogate \(\\ud800\) at character 2/;
