// Alert delivery end to end: a real pool over a temp SQLite file POSTs to an HTTP server this test starts
// on loopback. The body arrives with a valid signature; a 500 makes readpast retry the delivery task,
// which succeeds on a later attempt. A dead task fires its rule through the evaluation. Loopback is allowed here
// through the webhook allow-list (alerts-webhook-policy.test.ts: what is refused without it).
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALERT_QUEUE } from '../engine/alert-types';
import { sleep } from '../engine/handlers';
import type { Pool } from '../engine/pool';
import type { Store } from '../engine/ports';
import { openStore } from './open';
import { Readpast, readModelOf } from './readpast';

interface Received {
  body: string;
  signature: string | undefined;
  contentType: string | undefined;
  path: string | undefined;
}

let dir: string;
let store: Store;
let rp: Readpast;
let pool: Pool | null;
let server: Server;
let url: string;
let received: Received[];
/** statuses to answer, in order; then 200 */
let answers: number[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-alerts-'));
  store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
  // the webhook this test serves is on loopback: allowed on purpose, as READPAST_WEBHOOK_ALLOW=127.0.0.1/32 would
  rp = new Readpast(store, { webhooks: { allow: '127.0.0.1/32' } });
  pool = null;
  received = [];
  answers = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['x-readpast-signature'] as string | undefined,
        contentType: req.headers['content-type'],
        path: req.url,
      });
      res.statusCode = answers.shift() ?? 200;
      res.end(res.statusCode === 200 ? 'ok' : 'try later');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterEach(async () => {
  await pool?.stop(0);
  await rp.close();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; last value ${JSON.stringify(v)}`);
    await sleep(25);
  }
}

const valid = (r: Received, secret: string) =>
  r.signature === 'sha256=' + createHmac('sha256', secret).update(r.body, 'utf8').digest('hex');

describe('alert delivery', () => {
  it('POSTs the signed body; a 500 is retried with backoff and a later attempt succeeds', async () => {
    const rule = await rp.alerts.create({ name: 'hook', kind: 'no_worker', url, secret: 'loopback-secret' });
    expect(rule.secret).toBe('••••cret');
    answers = [500];
    pool = rp.createPool({ concurrency: 1, pollMs: 20, heartbeatMs: 50, maintenance: false });
    await pool.start();
    const sent = await rp.alerts.test(rule.id);
    const task = await until(
      () => readModelOf(rp).getTask(sent.token),
      (t) => t?.status === 'succeeded' || t?.status === 'dead',
    );
    expect(task).toMatchObject({ status: 'succeeded', attempts: 2, queue: ALERT_QUEUE });
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(valid(r, 'loopback-secret')).toBe(true);
      expect(r.contentType).toBe('application/json');
    }
    expect(valid({ ...received[0]!, body: received[0]!.body + ' ' }, 'loopback-secret')).toBe(false);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ source: 'readpast', rule: 'hook', kind: 'no_worker', key: 'test', test: true });
    // the first attempt failed with the webhook's answer, visible like any task's
    const attempts = await rp.attempts({ queue: ALERT_QUEUE });
    expect(attempts.items.map((a) => a.outcome).sort()).toEqual(['failed', 'succeeded']);
    expect(attempts.items.find((a) => a.outcome === 'failed')?.errorMessage).toContain('answered 500');
    // the history shows the firing with its delivery's status
    const history = await rp.alerts.firings({});
    expect(history.items[0]).toMatchObject({ rule: 'hook', taskToken: sent.token, status: 'succeeded', test: true });
  });

  it('a dead task fires its rule once; the delivery reaches the webhook', async () => {
    const rule = await rp.alerts.create({ name: 'orders-dead', kind: 'task_dead', queue: 'orders', url, secret: 's' });
    pool = rp.createPool({ concurrency: 2, pollMs: 20, heartbeatMs: 50, maintenance: false });
    await pool.start();
    const r = await rp.enqueue({ command: 'demo.fail', queue: 'orders', maxAttempts: 1, payload: { message: 'card declined' } });
    await until(
      () => readModelOf(rp).getTask(r.token),
      (t) => t?.status === 'dead',
    );
    // the evaluation any pool runs every few seconds (maintenance.ts), called here until the dead task is read
    const fired = await until(
      () => store.maintenance.evaluateAlerts(),
      (f) => f.length > 0,
    );
    expect(fired).toMatchObject([{ ruleName: 'orders-dead', dedupKey: 'dead:orders:demo.fail' }]);
    expect(await store.maintenance.evaluateAlerts()).toEqual([]);
    await until(
      async () => received.length,
      (n) => n === 1,
    );
    const body = JSON.parse(received[0]!.body);
    expect(body).toMatchObject({ rule: 'orders-dead', ruleId: rule.id, kind: 'task_dead', test: false });
    expect(body.message).toContain(r.token);
    expect(body.message).toContain('card declined');
    expect(valid(received[0]!, 's')).toBe(true);
  });

  it('keeps the webhook URL out of reads and of the delivery task: it is read from the rule when the delivery runs', async () => {
    const secretUrl = `${url}/T000/B000/xoxb-secret-part?token=abcd1234`;
    const rule = await rp.alerts.create({ name: 'slack', kind: 'no_worker', url: secretUrl, format: 'slack' });
    const host = new URL(url).host;
    expect(rule.url).toBe(`http://${host}/…1234`);
    expect(JSON.stringify(await rp.alerts.list())).not.toContain('xoxb-secret-part');
    const sent = await rp.alerts.test(rule.id);
    const queued = await readModelOf(rp).getTask(sent.token);
    expect(JSON.stringify(queued)).not.toContain('xoxb-secret-part');
    expect(queued!.payload).toMatchObject({ rule: 'slack', ruleId: rule.id });
    // an edit that leaves the URL out keeps it; the audit trail has it masked too
    await rp.alerts.update(rule.id, { dedupMs: 60_000 });
    expect(JSON.stringify(await rp.audit.list({ limit: 100 }))).not.toContain('xoxb-secret-part');
    pool = rp.createPool({ concurrency: 1, pollMs: 20, heartbeatMs: 50, maintenance: false });
    await pool.start();
    await until(
      () => readModelOf(rp).getTask(sent.token),
      (t) => t?.status === 'succeeded',
    );
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/hook/T000/B000/xoxb-secret-part?token=abcd1234');
    // a rule deleted before its delivery ran: the delivery dies at once, saying why
    const gone = await rp.alerts.create({ name: 'gone', kind: 'no_worker', url });
    const orphan = await rp.alerts.test(gone.id);
    await pool.stop();
    pool = null;
    await rp.alerts.remove(gone.id);
    pool = rp.createPool({ concurrency: 1, pollMs: 20, heartbeatMs: 50, maintenance: false });
    await pool.start();
    const dead = await until(
      () => readModelOf(rp).getTask(orphan.token),
      (t) => t?.status === 'dead' || t?.status === 'succeeded',
    );
    expect(dead).toMatchObject({ status: 'dead', attempts: 1 });
    expect(dead!.lastError?.message).toContain(`alert rule ${gone.id} was deleted before the delivery ran`);
  });

  it('a refused connection fails the attempt (retryable), with the host in the message', async () => {
    const rule = await rp.alerts.create({ name: 'nowhere', kind: 'no_worker', url: 'http://127.0.0.1:9/none', dedupMs: 0 });
    pool = rp.createPool({ concurrency: 1, pollMs: 20, heartbeatMs: 50, maintenance: false });
    await pool.start();
    const sent = await rp.alerts.test(rule.id);
    const attempts = await until(
      () => rp.attempts({ queue: ALERT_QUEUE }),
      (p) => p.items.some((a) => a.outcome === 'failed'),
    );
    expect(attempts.items[0]!.errorMessage).toContain('127.0.0.1:9');
    expect((await readModelOf(rp).getTask(sent.token))?.maxAttempts).toBe(5);
  });
});
