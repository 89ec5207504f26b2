// POST /api/engine/drain?maxMs=: process due tasks for at most maxMs, then return — for deployments
// where no long-lived pool can run (serverless, cron-driven). One drain at a time per process.
import { z } from 'zod';
import { getEngine } from '@/lib/server/engine';
import { handle, intParam, json, readQuery } from '@/lib/server/http';
import { drain } from '@/lib/server/drain';

export const dynamic = 'force-dynamic';
export const maxDuration = 60;

const query = z.object({ maxMs: intParam(1, 60_000).default(10_000) });

export const POST = handle(async (req: Request) => {
  const { maxMs } = readQuery(req, query);
  return json(await drain(await getEngine(), maxMs));
});
