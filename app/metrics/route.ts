// GET /metrics: Prometheus text exposition (lib/api/metrics.ts), protected like the API (Basic or Bearer
// when READPAST_AUTH is set: proxy.ts).
import { getEngine } from '@/lib/server/engine';
import { handle } from '@/lib/server/http';
import { PROMETHEUS_CONTENT_TYPE } from '@/lib/api/metrics';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { readpast } = await getEngine();
  return new Response(await readpast.prometheus(), {
    headers: { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' },
  });
});
