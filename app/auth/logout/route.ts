// POST /auth/logout: end the session, then sign out at the provider too; GET shows the form (lib/server/signin.ts).
import { handleLogout } from '@/lib/server/signin';
import { signOnRoute } from '@/lib/server/signon-route';

export const dynamic = 'force-dynamic';

export const GET = signOnRoute(handleLogout);
export const POST = signOnRoute(handleLogout);
