// Types of bin/dts-optional.mjs (plain JavaScript, loaded by tsdown.config.ts).

/** `text` (a .d.ts) with `| undefined` added to every optional property whose type does not take undefined. */
export function optionalsTakeUndefined(text: string, fileName?: string): { text: string; changed: number };
