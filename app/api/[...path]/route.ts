// Any other /api path: a JSON 404 rather than the dashboard's HTML page.
import { json } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const notFound = async (req: Request) => json({ error: `no API route ${new URL(req.url).pathname}` }, 404);

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
