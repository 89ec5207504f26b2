// GET /api/me: who the request is signed in as and what they may do ({user, role}); the dashboard hides
// the controls a viewer would be refused.
import { serverConfig } from '@/lib/server/config';
import { handle, json } from '@/lib/server/http';
import { identify } from '@/lib/server/identity';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request) => {
  const me = identify(req.headers.get('authorization'), serverConfig(), ['basic', 'bearer']) ?? { user: 'unknown', role: 'viewer' };
  return json(me);
});
