// The SQLite store's task tokens: the token is TEXT, its index sorts it as text, so tokens are uuid v7
// (time first; lib/engine/tokens.ts).
import { newToken as mint, type TokenOrder } from '../../lib/engine/tokens';

export const TOKEN_ORDER: TokenOrder = 'text';

/** A new task token; `now` is the transaction's clock (ms). */
export const newToken = (now: number): string => mint(TOKEN_ORDER, now);
