// GET /api/tasks/{token}/logs?attempt=&after=: an attempt's kept log lines after seq `after` and its latest
// progress → {attempt, lines: [{seq, at, stream, line}], truncated, dropped, progress, next}. Poll with
// `after=<next>` for a live tail.
import { getEngine } from '@/lib/server/engine';
import { handle, json, type Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request, { params }: Params<{ token: string }>) => {
  const { token } = await params;
  const q = new URL(req.url).searchParams;
  const { readpast } = await getEngine();
  return json(await readpast.attemptOutput(token, { attempt: q.get('attempt') ?? undefined, after: q.get('after') ?? undefined }));
});
