// Queues for the API and server actions: who a change is recorded as made by, and a queue name
// from a URL path segment. The views themselves come from lib/api.
import { decodeSegment } from '@/lib/api/requests';
import { parseWith, queueName } from '@/lib/engine/validation';
import type { ServerConfig } from './config';

/** The name a queue change is recorded under: the signed-in user when READPAST_AUTH is set, else where it came from. */
export function changedBy(config: Pick<ServerConfig, 'auth'>, origin: 'api' | 'dashboard'): string {
  return config.auth?.user ?? origin;
}

/** A queue name from a URL path segment (decoded when it still is percent-encoded), validated as `name`. */
export function queueNameParam(raw: string): string {
  const name = decodeSegment(raw);
  return parseWith(queueName, name, 'name');
}
