// Durable handlers on SQL Server: not written yet in this build. Reads answer "none"; what would change
// anything refuses with a message that says so.
import type { CommandPort, MaintenancePort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import type { Shared } from './connection';

const NOT_YET = 'durable handlers (steps, sleeps, events) are not available on SQL Server in this version';

export const maintenanceSlice = { wakeDue: async () => 0 } satisfies Slice<Shared, MaintenancePort>;
export const commandSlice = {
  sendEvent: async () => {
    throw new Error(NOT_YET);
  },
  wake: async () => {
    throw new Error(NOT_YET);
  },
} satisfies Slice<Shared, CommandPort>;
export const readSlice = {
  listSteps: async () => [],
  listEvents: async () => ({ items: [], nextCursor: null }),
  getEvent: async () => null,
  suspendedCounts: async () => [],
} satisfies Slice<Shared, ReadModel>;

export const notYet = async (): Promise<never> => {
  throw new Error(NOT_YET);
};
