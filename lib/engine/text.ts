// Text that is not Unicode: a lone surrogate (half of a UTF-16 pair without its other half, e.g. "a\ud800b",
// which JSON.parse accepts as `"a\ud800b"`). It has no UTF-8 form: SQLite keeps it as three bytes that read back
// as "a\ufffd\ufffd\ufffdb" (a concurrency key then names another key, and the value shown finds nothing; a key
// derived from a payload by `keyFrom` is mangled the same way), and no URL can carry it (encodeURIComponent
// throws), so the dashboard could never link to it. So every string of a request — names, keys, text, the
// payload's strings and object keys — is refused at the front door (validation.ts parseWith, the HTTP body
// reader), the field named. Imports nothing: the browser may use it.

/** String.prototype.isWellFormed (ES2024; Node 20), which this project's TypeScript lib (ES2023) does not declare. */
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** A lone surrogate: with the `u` flag a pair is one code point, a lone half a code point of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether `s` is well-formed Unicode (no lone surrogate). */
export function wellFormed(s: string): boolean {
  return isWellFormed(s);
}

/** The message for an ill-formed string: where its first lone surrogate is, as a `\\uXXXX` escape. */
export function illFormedMessage(s: string): string {
  const at = s.search(LONE_SURROGATE);
  const unit = s.charCodeAt(at).toString(16);
  return `not well-formed Unicode: a lone surrogate (\\u${unit}) at character ${at + 1}`;
}

export interface IllFormed {
  /** the path to the string (array indexes and object keys; an ill-formed key is shown with U+FFFD) */
  path: (string | number)[];
  message: string;
}

/** A step of the path to a value: its key and the step to its container (the path is built only for a refusal). */
interface Step {
  key: string | number;
  up: Step | null;
}

const pathOf = (step: Step | null): (string | number)[] => {
  const path: (string | number)[] = [];
  for (let s = step; s !== null; s = s.up) path.push(s.key);
  return path.reverse();
};

/**
 * The first string in `value` that is not well-formed Unicode — `value` itself, an item of an array, a key or a
 * value of a plain object, at any depth — or null. Other objects (a Date, a class instance) are not entered.
 * Iterative: a deeply nested payload cannot exhaust the stack.
 */
export function findIllFormed(value: unknown): IllFormed | null {
  const values: unknown[] = [value];
  const steps: (Step | null)[] = [null];
  while (values.length > 0) {
    const v = values.pop();
    const at = steps.pop()!;
    if (typeof v === 'string') {
      if (!isWellFormed(v)) return { path: pathOf(at), message: illFormedMessage(v) };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        values.push(v[i]);
        steps.push({ key: i, up: at });
      }
    } else if (typeof v === 'object' && v !== null) {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) continue;
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        if (!isWellFormed(k)) {
          const shown = k.replace(new RegExp(LONE_SURROGATE.source, 'gu'), '\ufffd');
          return { path: pathOf({ key: shown, up: at }), message: `its key is ${illFormedMessage(k)}` };
        }
        values.push((v as Record<string, unknown>)[k]);
        steps.push({ key: k, up: at });
      }
    }
  }
  return null;
}
