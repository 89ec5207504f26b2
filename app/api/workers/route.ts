// GET /api/workers: every worker process and session, this process's pool, live-status availability.
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';
import { workersView } from '@/lib/server/views';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => json(await workersView(await getEngine())));
