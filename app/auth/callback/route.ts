// GET /auth/callback: the provider's answer to a sign-in (lib/server/signin.ts).
import { handleCallback } from '@/lib/server/signin';
import { signOnRoute } from '@/lib/server/signon-route';

export const dynamic = 'force-dynamic';

export const GET = signOnRoute(handleCallback);
