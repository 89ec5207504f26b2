// Durable handlers on SQL Server: not written yet in this version; they need a SQLite store for now. Reads answer
// "none" (no task here is ever suspended); what would record a step or change anything refuses with a message that
// says so: 409 at the front door, and a handler's attempt that calls ctx.step & co. fails without retry.
import { ConflictError, NonRetryableError } from '../../lib/engine/errors';
import type { CommandPort, MaintenancePort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import type { Shared } from './connection';

export const DURABLE_NEEDS_SQLITE =
  'durable handlers (ctx.step, ctx.transaction, ctx.sleep, ctx.waitForEvent) and events need a SQLite store for now: ' +
  'SQL Server does not run them in this version';

const refuse = async (): Promise<never> => {
  throw new ConflictError(DURABLE_NEEDS_SQLITE);
};

export const maintenanceSlice = { wakeDue: async () => 0 } satisfies Slice<Shared, MaintenancePort>;
export const commandSlice = { sendEvent: refuse, wake: refuse } satisfies Slice<Shared, CommandPort>;
export const readSlice = {
  listSteps: async () => [],
  listEvents: async () => ({ items: [], nextCursor: null }),
  getEvent: async () => null,
  suspendedCounts: async () => [],
} satisfies Slice<Shared, ReadModel>;

/** A handler's step on this store: its attempt fails at once, with no retry (none could succeed). */
export const notYet = async (): Promise<never> => {
  throw new NonRetryableError(DURABLE_NEEDS_SQLITE);
};
