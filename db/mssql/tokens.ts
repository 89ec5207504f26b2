// The SQL Server store's task tokens: the token is a uniqueidentifier, its index (UX_Tasks_token) sorts it
// as SQL Server compares uniqueidentifiers, so tokens carry their time in the last group (lib/engine/tokens.ts).
// The T-SQL callers' procedure makes the same layout on the server (sql/tokens.ts).
import { newToken as mint, type TokenOrder } from '../../lib/engine/tokens';

export const TOKEN_ORDER: TokenOrder = 'uniqueidentifier';

/** A new task token, timed by this process's clock. */
export const newToken = (): string => mint(TOKEN_ORDER);
