// Checks of the T-SQL callers' parameters (sql/callers.ts): each raises THROW 50000+n naming its parameter; here the
// dependencies of readpast.ExecAsync (migration 20), turned into the enqueue's `dependsOn` (@depends, JSON).
import { MAX_PARENTS } from '../../../lib/engine/limits';

/** THROW 50000+n with the message (a parameter error, raised before anything is written). */
export const fail = (n: number, message: string) => `THROW ${50000 + n}, N'${message.replace(/'/g, "''")}', 1;`;

/**
 * @DependsOn: task tokens separated by commas (spaces around each allowed), read in order into @deps; each must name
 * an existing task (50019 names the one that does not), at most MAX_PARENTS, none for a task of a batch. The enqueue
 * checks them again under lock (readpast.Enqueue_<hash>: a parent deleted meanwhile fails the call).
 */
export const DEPENDENCY_CHECKS = `IF @OnParentFailure IS NOT NULL
    AND @OnParentFailure COLLATE Latin1_General_100_BIN2 NOT IN ('cancel', 'run', 'wait')
    ${fail(18, "@OnParentFailure: 'cancel', 'run' or 'wait'")}
  DECLARE @deps TABLE (n int NOT NULL PRIMARY KEY, raw nvarchar(4000) NOT NULL, token uniqueidentifier NULL);
  IF @DependsOn IS NOT NULL
    INSERT INTO @deps (n, raw, token)
      SELECT CAST(d.[key] AS int), LTRIM(RTRIM(d.value)), TRY_CONVERT(uniqueidentifier, LTRIM(RTRIM(d.value)))
      FROM OPENJSON(CONCAT(N'["', REPLACE(STRING_ESCAPE(@DependsOn, 'json'), N',', N'","'), N'"]')) AS d;
  IF (SELECT COUNT(*) FROM @deps) > ${MAX_PARENTS}
    ${fail(22, `@DependsOn: at most ${MAX_PARENTS} tokens`)}
  IF EXISTS (SELECT 1 FROM @deps) AND @BatchId IS NOT NULL
    ${fail(23, '@DependsOn: a task in a batch takes no dependencies (stages order a batch)')}
  SELECT TOP (1) @err = CASE
      WHEN d.token IS NULL THEN CONCAT(N'@DependsOn: ', CONCAT(N'''', LEFT(d.raw, 100), N''''), N' is not a task token')
      ELSE CONCAT(N'@DependsOn: no task with token ', d.raw) END
    FROM @deps AS d
    WHERE d.token IS NULL OR NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = d.token)
    ORDER BY d.n;
  IF @err IS NOT NULL THROW 50019, @err, 1;
  DECLARE @depends nvarchar(max) = (SELECT d.n, LOWER(CONVERT(nchar(36), d.token)) AS token,
      COALESCE(@OnParentFailure, 'cancel') AS onParentFailure
    FROM @deps AS d FOR JSON PATH);`;

const HEX = (n: number) => '[0-9a-f]'.repeat(n);

/**
 * @TraceParent: a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>, lower case), the trace the task continues
 * (lib/engine/tracing.ts); version ff and all-zero ids are not one. NULL: none.
 */
export const TRACE_PARENT_CHECK = `IF @TraceParent IS NOT NULL AND (DATALENGTH(@TraceParent) <> 55
      OR @TraceParent COLLATE Latin1_General_100_BIN2 NOT LIKE '${HEX(2)}-${HEX(32)}-${HEX(16)}-${HEX(2)}'
      OR LEFT(@TraceParent, 2) = 'ff' OR SUBSTRING(@TraceParent, 4, 32) = REPLICATE('0', 32)
      OR SUBSTRING(@TraceParent, 37, 16) = REPLICATE('0', 16))
    ${fail(24, '@TraceParent: a W3C traceparent (00-<32 hex digits>-<16 hex digits>-<2 hex digits>, lower case)')}`;
