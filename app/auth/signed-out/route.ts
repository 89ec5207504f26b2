// GET /auth/signed-out: where the provider sends the browser after signing out (lib/server/signin.ts).
import { signedOutPage } from '@/lib/server/signin';
import { signOnRoute } from '@/lib/server/signon-route';

export const dynamic = 'force-dynamic';

export const GET = signOnRoute(() => signedOutPage());
