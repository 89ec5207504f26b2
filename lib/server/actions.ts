// The plumbing of every server action (app/**/actions.ts): access checked (a viewer is refused), the
// signed-in user made the actor of what it changes (recorded in the audit log, source `ui`), failures
// reported as a result value — nothing is thrown to the client.
import { headers } from 'next/headers';
import { asActor } from '../api/audit';
import { serverConfig } from './config';
import { checkRequest } from './guard';
import { describeError } from './http';
import { actorName, type Identity } from './identity';

export type ActionResult<T = {}> = ({ ok: true } & T) | { ok: false; error: string; field?: string };

class Denied extends Error {
  override readonly name = 'Denied';
}

async function guard(): Promise<Identity> {
  const h = await headers();
  const verdict = await checkRequest(
    {
      method: 'POST',
      api: false,
      authorization: h.get('authorization'),
      host: h.get('host'),
      origin: h.get('origin'),
      cookie: h.get('cookie'),
    },
    serverConfig(),
  );
  if (!verdict.ok) throw new Denied(verdict.signIn ? 'your session has ended: reload the page to sign in again' : verdict.error);
  return verdict.identity;
}

/** Run a server action's body as the signed-in user; its result or its failure as an ActionResult. */
export async function runAction<T extends object>(fn: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    const identity = await guard();
    return { ok: true, ...(await asActor({ name: actorName(identity), source: 'ui' }, fn)) };
  } catch (err) {
    if (err instanceof Denied) return { ok: false, error: err.message };
    const { body } = describeError(err);
    return body.field ? { ok: false, error: body.error, field: body.field } : { ok: false, error: body.error };
  }
}
