// GET /api/handlers: handler names that can be enqueued (this process's and those of worker processes),
// and what this database can run: `kinds` (task kinds) and `dialect` (`sqlite` | `mssql`).
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => json(await (await getEngine()).readpast.handlers()));
