// OpenTelemetry through the dashboard (`next start` with the OTEL_* variables: playwright.config.ts): a task enqueued
// by POST /api/tasks with a `traceparent` header, failing once then succeeding in the dashboard's own pool. The task
// page shows its trace id linked through READPAST_TRACE_URL, the first attempt in that trace and the retry in a trace
// of its own; the dashboard's SDK exported the enqueue's send span (the header's child) and both attempt spans to the
// OTLP/HTTP receiver this spec starts.
import { createServer, type Server } from 'node:http';
import { expect, test } from '@playwright/test';
import { unique, waitForStatus } from './helpers';

const RECEIVER_PORT = Number(process.env.E2E_PORT ?? 3210) + 1;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const received: Span[] = [];
let server: Server;

test.beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => (text += d));
    req.on('end', () => {
      try {
        const body = JSON.parse(text) as { resourceSpans?: { scopeSpans: { spans: Span[] }[] }[] };
        for (const r of body.resourceSpans ?? []) for (const s of r.scopeSpans) received.push(...s.spans);
      } catch {
        /* not a trace export */
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(RECEIVER_PORT, '127.0.0.1', resolve));
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const attr = (s: Span, key: string) => s.attributes.find((a) => a.key === key)?.value.stringValue;

test('a task enqueued with a traceparent: its trace on the task page, and its spans at the receiver', async ({
  page,
  request,
}, testInfo) => {
  const queue = unique('e2e-trace');
  const res = await request.post('/api/tasks', {
    data: { command: 'demo.flaky', payload: { failTimes: 1 }, queue, maxAttempts: 3 },
    headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
  });
  expect(res.status()).toBe(201);
  const { token } = (await res.json()) as { token: string };
  await waitForStatus(request, token, 'succeeded', 30_000);

  await page.goto(`/tasks/${token}`);
  const link = page.getByTestId('task-trace');
  await expect(link).toHaveText(TRACE_ID);
  await expect(link).toHaveAttribute('href', `https://tempo.example/trace/${TRACE_ID}`);
  const first = page.locator('[data-testid="attempt"][data-attempt="1"]').getByTestId('attempt-trace');
  const second = page.locator('[data-testid="attempt"][data-attempt="2"]').getByTestId('attempt-trace');
  await expect(first).toHaveText(TRACE_ID);
  await expect(second).toHaveText(/^[0-9a-f]{32}$/);
  await expect(second).not.toHaveText(TRACE_ID);
  await expect(page.locator('[data-testid="attempt"][data-attempt="2"]')).toContainText('trace (its own)');
  await page.screenshot({ path: testInfo.outputPath('task-trace.png'), fullPage: true });

  // the dashboard's SDK exported them: the send span under the header's, and both attempts
  await expect
    .poll(
      () =>
        received
          .filter((s) => attr(s, 'messaging.message.id') === token)
          .map((s) => s.name)
          .sort(),
      { timeout: 30_000 },
    )
    .toEqual([`process ${queue}`, `process ${queue}`, `send ${queue}`]);
  const send = received.find((s) => s.name === `send ${queue}`)!;
  expect(send.traceId).toBe(TRACE_ID);
  // under the header's span: directly, or through the server's own request span(s) that continued it
  const ancestors: string[] = [];
  for (let p = send.parentSpanId; p && ancestors.length < 10; p = received.find((s) => s.spanId === p)?.parentSpanId) ancestors.push(p);
  expect(ancestors).toContain(CALLER_SPAN);
  const attempts = received.filter((s) => s.name === `process ${queue}`);
  expect(attempts.find((s) => s.parentSpanId === send.spanId)?.traceId).toBe(TRACE_ID);
  expect(attempts.some((s) => s.traceId !== TRACE_ID && !s.parentSpanId)).toBe(true);
});
