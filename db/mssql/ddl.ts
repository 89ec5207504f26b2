// Guarded DDL for migrations: a table or an index is created only when missing, so a re-run is harmless.

export const table = (name: string, body: string) => `IF OBJECT_ID(N'readpast.${name}', N'U') IS NULL
CREATE TABLE readpast.${name} (
${body}
);`;

export const index = (tableName: string, name: string, definition: string) => `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.${tableName}') AND name = N'${name}')
${definition};`;

export const dropIndex = (
  tableName: string,
  name: string,
) => `IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.${tableName}') AND name = N'${name}')
  DROP INDEX ${name} ON readpast.${tableName};`;
