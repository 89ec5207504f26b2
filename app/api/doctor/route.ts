// GET /api/doctor: what will work on this database (as `readpast doctor --json`): every check with
// its remedy; `ok` = nothing this configuration needs is missing. Asks the database each time
// (a few round trips and a claim rolled back on SQL Server): the Workers page reads it on demand.
import { getEngine } from '@/lib/server/engine';
import { handle, json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => json(await (await getEngine()).readpast.doctor()));
