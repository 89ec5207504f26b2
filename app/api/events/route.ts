// GET /api/events?name=&before=&limit=: events newest first (keyset on id: pass nextCursor as `before`; limit 1–200,
// default 50). POST /api/events {name, payload?}: send an event — every task waiting for `name` whose match the
// payload contains resumes with it, in the event's transaction (operator; audited `event.send`): 201
// {id, resumed, tokens}. A bad name or a payload over 64 KiB: 400 naming the field.
import { z } from 'zod';
import { EVENT_PAGE_MAX } from '@/lib/api/durable';
import { getEngine } from '@/lib/server/engine';
import { cursorParam, handle, intParam, json, readBody, readQuery } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const query = z.object({
  name: z.string().optional(),
  before: cursorParam.optional(),
  limit: intParam(1, EVENT_PAGE_MAX).optional(),
});

const body = z.object({ name: z.unknown(), payload: z.unknown().optional() }, { message: 'an object {name, payload?}' });

export const GET = handle(async (req: Request) => {
  const filter = readQuery(req, query);
  const { readpast } = await getEngine();
  return json(await readpast.events(filter));
});

export const POST = handle(async (req: Request) => {
  const { name, payload } = await readBody(req, body);
  const { readpast } = await getEngine();
  return json(await readpast.sendEvent(name as string, payload), 201);
});
