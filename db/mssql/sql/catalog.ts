// T-SQL of the upgrade-path test (db/mssql/upgrade.test.ts, on a database of its own: MSSQL_UPGRADE_URL): the
// catalog of schema readpast as two databases are compared by, the tables and columns to fill, and the drop of
// the whole schema between versions. Never sent by the store.

/**
 * Five result sets: every column (type, length, precision, scale, nullability, collation, identity, default);
 * every index with its filter; every index's columns in key order (included ones after); every constraint
 * (check constraints with their definition, primary keys, unique and default constraints with their column);
 * every procedure and view with the sha-256 of its definition.
 */
export const CATALOG_SNAPSHOT = `SET NOCOUNT ON;
SELECT t.name AS table_name, c.name AS column_name, TYPE_NAME(c.user_type_id) AS type_name, c.max_length, c.precision,
    c.scale, c.is_nullable, c.collation_name, c.is_identity, dc.definition AS default_definition
  FROM sys.tables AS t
  JOIN sys.columns AS c ON c.object_id = t.object_id
  LEFT JOIN sys.default_constraints AS dc ON dc.object_id = c.default_object_id
  WHERE t.schema_id = SCHEMA_ID(N'readpast')
  ORDER BY t.name, c.name;
SELECT t.name AS table_name, i.name AS index_name, i.type_desc, i.is_unique, i.is_primary_key, i.is_unique_constraint,
    i.has_filter, i.filter_definition
  FROM sys.tables AS t
  JOIN sys.indexes AS i ON i.object_id = t.object_id
  WHERE t.schema_id = SCHEMA_ID(N'readpast') AND i.type > 0
  ORDER BY t.name, i.name;
SELECT i.name AS index_name, ic.key_ordinal, ic.is_included_column, ic.is_descending_key, c.name AS column_name
  FROM sys.tables AS t
  JOIN sys.indexes AS i ON i.object_id = t.object_id
  JOIN sys.index_columns AS ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
  JOIN sys.columns AS c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
  WHERE t.schema_id = SCHEMA_ID(N'readpast') AND i.type > 0
  ORDER BY i.name, ic.is_included_column, ic.key_ordinal, c.name;
SELECT o.name AS constraint_name, o.type, t.name AS table_name, cc.definition AS check_definition, col.name AS column_name
  FROM sys.objects AS o
  JOIN sys.tables AS t ON t.object_id = o.parent_object_id
  LEFT JOIN sys.check_constraints AS cc ON cc.object_id = o.object_id
  LEFT JOIN sys.default_constraints AS dc ON dc.object_id = o.object_id
  LEFT JOIN sys.columns AS col ON col.object_id = dc.parent_object_id AND col.column_id = dc.parent_column_id
  WHERE t.schema_id = SCHEMA_ID(N'readpast') AND o.type IN ('C', 'PK', 'UQ', 'D', 'F')
  ORDER BY o.name;
SELECT o.name, o.type, CONVERT(char(64), HASHBYTES('SHA2_256', m.definition), 2) AS definition_hash
  FROM sys.objects AS o
  JOIN sys.sql_modules AS m ON m.object_id = o.object_id
  WHERE o.schema_id = SCHEMA_ID(N'readpast')
  ORDER BY o.name;`;

/**
 * The columns to fill of every table (QUOTENAME'd names read from the catalog, as RESET_CATALOG reads them): not
 * identity, not computed; whether each may be left out (nullable or with a default), its type and length.
 */
export const FILL_COLUMNS = `SET NOCOUNT ON;
SELECT t.name AS table_name, QUOTENAME(t.name) AS quoted_table, c.name AS column_name, QUOTENAME(c.name) AS quoted_column,
    TYPE_NAME(c.user_type_id) AS type_name, c.max_length,
    CASE WHEN c.is_nullable = 1 OR c.default_object_id <> 0 THEN 1 ELSE 0 END AS optional
  FROM sys.tables AS t
  JOIN sys.columns AS c ON c.object_id = t.object_id
  WHERE t.schema_id = SCHEMA_ID(N'readpast') AND t.name <> N'SchemaVersion' AND c.is_identity = 0 AND c.is_computed = 0
  ORDER BY t.name, c.column_id;`;

/**
 * Drop schema readpast and everything in it (procedures, views, tables), each name quoted from the catalog; the
 * role readpast_caller stays. For the upgrade test's own database only.
 */
export const DROP_READPAST_SCHEMA = `SET NOCOUNT ON;
DECLARE @drop nvarchar(600) = N'';
WHILE @drop IS NOT NULL
BEGIN
  SET @drop = NULL;
  SELECT TOP (1) @drop = CASE o.type WHEN 'P' THEN N'DROP PROCEDURE ' WHEN 'V' THEN N'DROP VIEW ' ELSE N'DROP TABLE ' END
      + N'readpast.' + QUOTENAME(o.name)
    FROM sys.objects AS o
    WHERE o.schema_id = SCHEMA_ID(N'readpast') AND o.type IN ('P', 'V', 'U')
    ORDER BY CASE o.type WHEN 'P' THEN 0 WHEN 'V' THEN 1 ELSE 2 END, o.name;
  IF @drop IS NOT NULL
    EXEC (@drop);
END;
IF SCHEMA_ID(N'readpast') IS NOT NULL
  EXEC (N'DROP SCHEMA readpast');`;
