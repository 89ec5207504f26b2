// GET /api/me: who the request is signed in as and what they may do ({user, role, signOut}); the dashboard
// hides the controls a viewer would be refused, and shows who is signed in with a sign-out control when
// signed in with the provider (a session).
import { handle, json, requestIdentityOf } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (req: Request) => {
  const me = await requestIdentityOf(req);
  if (!me) return json({ user: 'unknown', role: 'viewer', signOut: false });
  return json({ user: me.user, role: me.role ?? 'viewer', signOut: me.via === 'session' });
});
