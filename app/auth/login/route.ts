// GET /auth/login?returnTo=/path: start a sign-in at the provider (lib/server/signin.ts).
import { handleLogin } from '@/lib/server/signin';
import { signOnRoute } from '@/lib/server/signon-route';

export const dynamic = 'force-dynamic';

export const GET = signOnRoute(handleLogin);
