// README.md's code blocks, for the tests that hold them to what a package user can write: lib/docs.test.ts
// (imports only from 'readpast') and bin/test/consumer.test.ts (each TypeScript block compiles against the
// packaged declarations under `tsc --init`'s strict defaults).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

export interface CodeBlock {
  /** the number of the block's first line of code in the page */
  line: number;
  lang: string;
  code: string;
}

/** The TypeScript and JavaScript blocks of README.md (or of `text`). */
export function readmeCode(text = readFileSync(README, 'utf8')): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const m of text.matchAll(/^```(ts|typescript|js|mjs|javascript)\n([\s\S]*?)^```$/gm)) {
    blocks.push({ line: text.slice(0, m.index).split('\n').length + 1, lang: m[1]!, code: m[2]! });
  }
  return blocks;
}
