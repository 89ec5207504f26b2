// GET /api/handlers: handler names that can be enqueued (this process's and those of worker processes).
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';
import { handlerNames } from '@/lib/server/views';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => json({ handlers: await handlerNames(await getEngine()) }));
