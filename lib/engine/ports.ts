// The ports between the engine and a database. Each part of readpast sees only the port it needs:
// the worker loop a WorkerPort, housekeeping a MaintenancePort, lib/api the CommandPort and the
// ReadModel, the SQL Server pages the optional SqlServerExtras. Every dialect in db/ implements all
// of them and passes db/contract. Nothing here knows SQL.
// One file per port in ports/; this barrel re-exports them all (new code may import the port's file directly).
export * from './ports/worker';
export * from './ports/maintenance';
export * from './ports/commands';
export * from './ports/read-model';
export * from './ports/sql-server';
export * from './ports/store';
