#!/usr/bin/env node
// `npm run check:format` (part of `npm test`), after `biome format`: no source line is longer than
// 140 characters. The formatter wraps code at that width but leaves long strings, template literals
// and comments alone; this check catches those. Prints `file:line: N characters` for each offender.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAX = 140;
const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|json)$/;
// generated or vendored: not ours to wrap
const GENERATED =
  /(^|\/)(node_modules|\.next|\.tmp|data|test-results|playwright-report|e2e-results)\/|^package-lock\.json$|(^|\/)next-env\.d\.ts$/;

/** The repository's files: tracked and new ones (git's ignore rules apply), or a walk when git is absent. */
function listFiles() {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
    return out.split('\0').filter(Boolean);
  } catch {
    const files = [];
    const walk = (dir) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const rel = relative(root, path);
        if (name === '.git' || GENERATED.test(`${rel}/`)) continue;
        if (statSync(path).isDirectory()) walk(path);
        else files.push(rel);
      }
    };
    walk(root);
    return files;
  }
}

const long = [];
for (const file of listFiles()) {
  if (!SOURCE.test(file) || GENERATED.test(file)) continue;
  const path = join(root, file);
  if (!existsSync(path)) continue; // deleted in the working tree, not yet in the index
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const length = [...line.replace(/\r$/, '')].length; // characters, not UTF-16 units or bytes
      if (length > MAX) long.push(`${file}:${i + 1}: ${length} characters`);
    });
}

if (long.length > 0) {
  console.error(long.join('\n'));
  console.error(
    `${long.length} line(s) longer than ${MAX} characters: wrap them (\`npm run format\` does code; strings and comments by hand)`,
  );
  process.exit(1);
}
