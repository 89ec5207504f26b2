// Dialect-free domain types shared by the engine, every Store and every surface (CLI, HTTP, UI), one file
// per concern in types/; this barrel re-exports them all (new code may import the concern's file directly).
export * from './types/tasks';
export * from './types/claims';
export * from './types/workers';
export * from './types/queues';
export * from './types/lists';
export * from './types/metrics';
export * from './types/commands';
export * from './types/batches';
export * from './types/schedules';
export * from './types/database';
export * from './types/audit';
export * from './types/output';
export * from './types/flows';
export * from './types/durable';
