// The identity of the request being rendered (pages): the proxy has let it in; this tells the page
// whether to show the operator's controls.
import { headers } from 'next/headers';
import { serverConfig } from './config';
import { identify, type Identity } from './identity';

export async function currentIdentity(): Promise<Identity> {
  try {
    const h = await headers();
    return identify(h.get('authorization'), serverConfig(), ['basic']) ?? { user: 'unknown', role: 'viewer' };
  } catch {
    return { user: 'unknown', role: 'viewer' };
  }
}
