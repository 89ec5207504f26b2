// Where the readpast package lies (the repository, or node_modules/readpast in a team's project), found
// from the calling file whether it runs from the TypeScript sources or from the compiled dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root: the nearest directory above `from` whose package.json names `readpast`. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'readpast') return dir;
      } catch {
        // not ours: keep looking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the readpast package above ${from}`);
    dir = up;
  }
}
