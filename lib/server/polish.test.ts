// The dashboard process: the pool starts with the size stored for this host, a resize is stored and
// audited, requests during the graceful stop get 503 with Retry-After, and the log's human lines.
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadpast } from '@/lib/api/open';
import { dashboardUrl, startupLine } from './boot';
import { getEngine, POOL_ROLE, poolInfo, resizePool, startEngine, stopEngine } from './engine';
import { describeError, handle, json } from './http';
import { humanLine, logFormat } from './log';
import { isShuttingDown } from './shutdown';

let dir: string;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-polish-'));
  url = `sqlite:${join(dir, 'db.sqlite')}`;
  process.env.READPAST_DATABASE_URL = url;
  process.env.READPAST_WORKERS = '4';
  process.env.READPAST_LOG_LEVEL = 'silent';
  // a size stored by an earlier process's resize on this host
  const rp = await openReadpast({ url });
  await rp.savePoolSize({ host: os.hostname(), role: POOL_ROLE, size: 2, before: 4 });
  await rp.close();
});

afterAll(async () => {
  await stopEngine(0);
  rmSync(dir, { recursive: true, force: true });
});

describe('the dashboard pool', () => {
  it('starts with the size stored for this host and role, not READPAST_WORKERS', async () => {
    const engine = await startEngine();
    expect(engine.pool?.size).toBe(2);
    expect(engine.poolSource).toMatchObject({ from: 'stored', size: 2 });
    const by = engine.poolSource.from === 'stored' ? engine.poolSource.by : '';
    expect(startupLine('http://127.0.0.1:3000', engine)).toBe(
      `readpast dashboard on http://127.0.0.1:3000 · ${url} · 2 workers (set by ${by}; READPAST_WORKERS=4)`,
    );
  });

  it('stores a resize for the next start and records pool.resize with before and after', async () => {
    const engine = await getEngine();
    const info = await resizePool(engine, 3);
    expect(info).toMatchObject({ size: 3, retiring: 0, role: POOL_ROLE, source: { from: 'stored', size: 3 } });
    expect((await engine.readpast.poolSetting(os.hostname(), POOL_ROLE))?.size).toBe(3);
    const audit = await engine.readpast.audit.list({ action: 'pool.resize', limit: 5 });
    expect(audit.items[0]).toMatchObject({
      action: 'pool.resize',
      target: `${os.hostname()}/web`,
      before: { workers: 2 },
      after: { workers: 3 },
    });
    expect(poolInfo(engine)?.size).toBe(3);
  });

  it('answers 503 with Retry-After once the server is stopping, without logging a failure', async () => {
    const route = handle(async (_req: Request) => json(await (await getEngine()).readpast.stats()));
    expect((await route(new Request('http://127.0.0.1/api/stats'))).status).toBe(200);
    const stopping = stopEngine(0);
    expect(isShuttingDown()).toBe(true);
    const r = await route(new Request('http://127.0.0.1/api/stats'));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('10');
    expect(((await r.json()) as { error: string }).error).toMatch(/shutting down/);
    await expect(getEngine()).rejects.toMatchObject({ name: 'ShuttingDownError' });
    // a request whose store closed under it during the stop is a 503 too, not a 500
    expect(describeError(new Error('The database connection is not open')).status).toBe(503);
    await stopping;
  });
});

describe('log lines', () => {
  it('are human-readable by default and JSON behind READPAST_LOG_FORMAT=json', () => {
    expect(logFormat({})).toBe('human');
    expect(logFormat({ READPAST_LOG_FORMAT: 'JSON' })).toBe('json');
    const t = new Date(2030, 0, 1, 9, 5, 7).getTime();
    const line = humanLine(JSON.stringify({ level: 40, time: t, pid: 1, hostname: 'h', name: 'readpast', msg: 'slow heartbeat', ms: 812 }));
    expect(line).toBe('09:05:07 warn  slow heartbeat  ms=812\n');
    expect(humanLine(JSON.stringify({ level: 30, time: t, startup: true, msg: 'readpast dashboard on http://x' }))).toBe(
      'readpast dashboard on http://x\n',
    );
    const err = humanLine(
      JSON.stringify({ level: 50, time: t, msg: 'request failed', err: { message: 'boom', stack: 'Error: boom\n  at x' } }),
    );
    expect(err).toContain('error="boom"');
    expect(err).toContain('    Error: boom');
  });

  it('name the address the dashboard serves on', () => {
    const cfg = { host: '127.0.0.1', port: 3000 };
    expect(dashboardUrl(cfg, ['node', 'next', 'start'])).toBe('http://127.0.0.1:3000');
    expect(dashboardUrl(cfg, ['node', 'next', 'start', '-H', '0.0.0.0', '-p', '8080'])).toBe('http://localhost:8080');
    expect(dashboardUrl(cfg, ['node', 'next', 'start', '--hostname=::1', '--port=4000'])).toBe('http://[::1]:4000');
  });
});
