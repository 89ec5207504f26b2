// The cost of OpenTelemetry (`npm run bench`, BENCH_ONLY=tracing): the drain rate of trivial tasks with no SDK
// registered (readpast's tracing is then the API's no-op), and with the SDK and an in-memory exporter — every task
// enqueued inside an active span, so each carries a context and each attempt records its span and keeps it with the
// attempt's end. The ratio traced / untraced is printed; the untraced rate is the one to hold against the processed
// rate of a build without tracing.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { context, propagation, trace } from '@opentelemetry/api';
import { BatchSpanProcessor, InMemorySpanExporter, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { openReadpast } from '../lib/api/open';
import type { Readpast } from '../lib/api/readpast';
import { drainRate } from './bench-drain';

const N = Number(process.env.BENCH_TRACING_TASKS ?? 30_000);
const POOL = Number(process.env.BENCH_CONCURRENCY ?? 64);
const CHUNK = 10_000;

async function enqueue(rp: Readpast, queue: string): Promise<void> {
  for (let done = 0; done < N; done += CHUNK) {
    await rp.enqueueMany(Array.from({ length: Math.min(CHUNK, N - done) }, () => ({ command: 'bench.noop', queue })));
  }
}

export async function benchTracing(dir: string, log: (...a: unknown[]) => void) {
  const rp = await openReadpast({ url: `sqlite:${join(mkdtempSync(join(dir, 'tracing-')), 'db.sqlite')}` });
  rp.registry.register('bench.noop', () => null);
  try {
    await enqueue(rp, 'untraced');
    const untracedPerSec = await drainRate(rp, 'untraced', N, POOL);
    log(`tracing: no SDK registered: ${Math.round(untracedPerSec)}/s`);

    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({
      spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 65_536, maxExportBatchSize: 4096, scheduledDelayMillis: 200 })],
    });
    provider.register();
    let tracedPerSec: number;
    try {
      // enqueued inside a request's span: every task carries its context
      await trace.getTracer('bench').startActiveSpan('request', async (span) => {
        await enqueue(rp, 'traced');
        span.end();
      });
      tracedPerSec = await drainRate(rp, 'traced', N, POOL);
      await provider.forceFlush();
      const attempts = exporter.getFinishedSpans().filter((s) => s.name === 'process traced').length;
      log(`tracing: SDK with an in-memory exporter: ${Math.round(tracedPerSec)}/s (${attempts} attempt spans exported)`);
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    }
    const tracingRatio = Math.round((tracedPerSec / untracedPerSec) * 1000) / 1000;
    log(`tracing: traced / untraced ${tracingRatio}`);
    return { untracedPerSec: Math.round(untracedPerSec), tracedPerSec: Math.round(tracedPerSec), tracingRatio };
  } finally {
    await rp.close();
  }
}
