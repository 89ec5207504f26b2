// The seeds' own interface for T-SQL callers, installed by content after the migrations (code-objects.ts):
// readpast.ExecAsync, GetScheduler, ReleaseScheduler, Synchronization, CancelTask, RetryTask, SendEvent, the view
// AsyncExecResults and the role readpast_caller; plus readpast.SettleBatches (internal, not granted).
//
// In the caller's transaction. ExecAsync, GetScheduler, ReleaseScheduler, CancelTask, RetryTask and SendEvent open
// no transaction of their own beyond the store's statements (a BEGIN/COMMIT pair nests in the caller's:
// the caller's COMMIT or ROLLBACK decides). Parameter errors (50001–50049) are raised before anything is
// written and under the caller's own XACT_ABORT setting: the caller's transaction stays as it was (with
// XACT_ABORT OFF) and the caller decides. Errors of the write itself (51001–51003: a batch not open or a
// later stage started; 51004: a dedup key's lock not granted within the session's LOCK_TIMEOUT; a
// deadlock) are raised under XACT_ABORT ON, which rolls the caller's transaction back: a write that failed
// halfway must not be committable. Two ExecAsync of one dedup key at once: the second waits for the first
// caller's transaction (an application lock per key, ENQUEUE_WRITE) and returns its token, as the library
// does; if the first rolls back, the second enqueues.
//
// Concurrency keys: ExecAsync's @ConcurrencyKey (1 to 200 characters, binary-compared; the last parameter, so
// positional calls written before it bind as they did) is the task's key; without it the queue's keyFrom
// derives one from @Payload inside readpast.Enqueue_<hash>, as for the library's tasks (migration 19).
//
// Trace context: ExecAsync's @TraceParent (a W3C traceparent; after @OnParentFailure, migration 22) is stored with the
// task: its first attempt's span is a child of that context (lib/engine/tracing.ts), as for the library's tasks.
//
// Dependencies: ExecAsync's @DependsOn (task tokens separated by commas, spaces allowed) and @OnParentFailure
// ('cancel' by default, 'run', 'wait'), after @ConcurrencyKey for the same reason (migration 20). Each token is
// checked (50019 names one that is not a task's) before the enqueue, which checks again under lock.
//
// Same statements as the store. ExecAsync calls readpast.Enqueue_<hash> (sql/hot.ts: ENQUEUE_WRITE installed),
// the very procedure the Node enqueue calls, with a one-element @tasks array it builds with FOR JSON (its token made
// as the store makes one: sql/tokens.ts); CancelTask and RetryTask run
// CANCEL_WRITE and RETRY_ONE_WRITE (sql/operators.ts); ReleaseScheduler, CancelTask and RetryTask settle the
// batches they touched with SETTLE_BATCHES_WRITE (sql/settle.ts, here as readpast.SettleBatches). So the
// lock order of sql/claim.ts holds here as there.
//
// Installed text. The procedures hold copies of those statements as they are in this code: a change to
// CANCEL_WRITE, RETRY_ONE_WRITE or SETTLE_BATCHES_WRITE (or a new name of the enqueue procedure) is installed
// by the next `readpast migrate` (CREATE OR ALTER under the same names, code-objects.ts). The public procedures
// only ever gain trailing optional parameters (callers.test.ts holds each one's released parameter list).
//
// Permissions: ownership chaining. Every object of the schema readpast has the schema's owner (none is
// given an owner of its own), so a procedure of readpast reading or writing a table of readpast is checked
// only for EXECUTE on the procedure: a member of readpast_caller, with EXECUTE on these procedures and
// SELECT on AsyncExecResults and nothing else, can enqueue and wait. No dynamic SQL (it would break the
// chain). One exception by design: OBJECT_ID, checking a procedure task's procedure, sees only what the
// caller may see (metadata visibility is not chained) — a caller may enqueue only procedures it can see.
import {
  HANDLER_NAME,
  MAX_ATTEMPTS,
  MAX_BATCH_PARALLEL,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_DEDUP_KEY_LENGTH,
  MAX_HANDLER_NAME_LENGTH,
  MAX_PAYLOAD_BYTES,
  MAX_PRIORITY,
  MAX_QUEUE_NAME_LENGTH,
  MAX_SQL_CHARS,
  MAX_STAGE,
  MAX_TIMEOUT_MS,
  MIN_ATTEMPTS,
  MIN_BATCH_PARALLEL,
  MIN_PRIORITY,
  MIN_STAGE,
  MIN_TIMEOUT_MS,
  QUEUE_NAME,
  QUEUE_NAME_RULE,
} from '../../../lib/engine/limits';
import { DEPENDENCY_CHECKS, fail, TRACE_PARENT_CHECK } from './caller-checks';
import { SEND_EVENT_BODY, SEND_EVENT_PARAMS } from './events';
import { HOT, hotName } from './hot';
import { CANCEL_WRITE, PAST_ABORT, RETRY_ONE_WRITE } from './operators';
import { SETTLE_BATCHES_WRITE } from './settle';
import { NEW_TOKEN } from './tokens';

/** The setting that lets T-SQL callers enqueue `sql` tasks (readpast.Settings; `readpast migrate --allow-sql on`). */
export const ALLOW_SQL_SETTING = 'allow_sql';

/** Read one setting (NULL when missing). */
export const GET_SETTING = 'SELECT s.value FROM readpast.Settings AS s WHERE s.name = @name;';

/** Set one setting (the CLI only; never the procedures). */
export const SET_SETTING = `SET NOCOUNT ON;
UPDATE readpast.Settings SET value = @value, changed_at = SYSUTCDATETIME(), changed_by = @by WHERE name = @name;
IF @@ROWCOUNT = 0
  INSERT INTO readpast.Settings (name, value, changed_at, changed_by) VALUES (@name, @value, SYSUTCDATETIME(), @by);`;

// ---- name rules as LIKE patterns, from the regular expressions of limits.ts ------------------------

/**
 * A regular expression of limits.ts of the form ^[first][rest]{0,n}$ as T-SQL conditions on a variable
 * (binary collation, so ranges are code-point ranges as in the regex): first character, the rest, length.
 */
export function nameCheck(re: RegExp, variable: string, maxLength: number): string {
  const m = /^\^\[([^\]]+)\]\[([^\]]+)\]\{0,(\d+)\}\$$/.exec(re.source);
  if (!m || Number(m[3]) + 1 !== maxLength) throw new Error(`not a simple name pattern: ${re.source}`);
  const first = m[1]!;
  const rest = m[2]!; // inside [ ] of LIKE as of a regex: a '-' last, '_' and '.' stand for themselves
  const c = 'COLLATE Latin1_General_100_BIN2';
  return `(${variable} IS NOT NULL AND DATALENGTH(${variable}) BETWEEN 2 AND ${2 * maxLength}
      AND ${variable} ${c} LIKE N'[${first}]%' AND ${variable} ${c} NOT LIKE N'%[^${rest}]%')`;
}

/**
 * @payload_bytes: the payload's length in UTF-8, as the library counts it (Buffer.byteLength of the JSON
 * text, lib/engine/validation.ts), so that both refuse the same payloads. An nvarchar is UTF-16 and
 * DATALENGTH counts its bytes; UTF-8 collations (which would give the UTF-8 length directly) start with
 * SQL Server 2019, and readpast supports 2016 SP1. So from the UTF-16 code units (collation-independent:
 * the varbinary of the value, two bytes each, low byte first): U+0000–U+007F is 1 byte, U+0080–U+07FF 2,
 * each half of a surrogate pair 2 (a character beyond U+FFFF is 4), any other 3. A payload of n code units
 * has between n and 3n bytes: only between MAX/3 and MAX units is it counted, unit by unit, over 8000-byte
 * pieces (read once from the value into a table variable, then each piece in row), a numbers table of
 * VALUES rows (no table read: the ownership chain needs none). Outside that band @payload_bytes is n,
 * which decides the check alike (≤ MAX/3: accepted; > MAX: refused).
 */
export const PAYLOAD_UTF8_BYTES = `DECLARE @payload_bytes bigint = COALESCE(DATALENGTH(@Payload), 0) / 2;
  IF @payload_bytes * 3 > ${MAX_PAYLOAD_BYTES} AND @payload_bytes <= ${MAX_PAYLOAD_BYTES}
  BEGIN
    DECLARE @payload_bin varbinary(max) = CAST(@Payload AS varbinary(max));
    DECLARE @pieces TABLE (piece int NOT NULL PRIMARY KEY, bytes varbinary(8000) NOT NULL);
    WITH d AS (SELECT v.n FROM (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS v(n)),
      k AS (SELECT TOP ((DATALENGTH(@payload_bin) + 7999) / 8000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) - 1 AS piece
        FROM d AS a CROSS JOIN d AS b CROSS JOIN d AS c)
    INSERT INTO @pieces (piece, bytes) SELECT k.piece, SUBSTRING(@payload_bin, k.piece * 8000 + 1, 8000) FROM k;
    WITH d AS (SELECT v.n FROM (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS v(n)),
      u AS (SELECT TOP (4000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) - 1 AS unit FROM d AS a CROSS JOIN d AS b CROSS JOIN d AS c)
    SELECT @payload_bytes = SUM(CASE WHEN x.cu < 128 THEN 1 WHEN x.cu < 2048 OR x.cu BETWEEN 55296 AND 57343 THEN 2 ELSE 3 END)
      FROM @pieces AS p
      JOIN u ON u.unit < DATALENGTH(p.bytes) / 2
      CROSS APPLY (SELECT CAST(SUBSTRING(p.bytes, 2 * u.unit + 1, 1) AS int)
        + 256 * CAST(SUBSTRING(p.bytes, 2 * u.unit + 2, 1) AS int) AS cu) AS x;
  END;`;

/** ExecAsync's checks, in order: each raises THROW 50000+n naming its parameter. */
const EXEC_CHECKS = `IF @Kind IS NULL OR @Kind COLLATE Latin1_General_100_BIN2 NOT IN ('handler', 'sql', 'procedure')
    ${fail(1, "@Kind: 'handler', 'sql' or 'procedure'")}
  IF @Kind = 'sql' SET @cmd = COALESCE(@Sql, @Command);
  ELSE SET @cmd = @Command;
  IF @Kind = 'handler' AND NOT ${nameCheck(HANDLER_NAME, '@cmd', MAX_HANDLER_NAME_LENGTH)}
    ${fail(2, `@Command: a handler name (a letter, then letters, digits, . _ : -; max ${MAX_HANDLER_NAME_LENGTH})`)}
  IF @Kind = 'handler' AND NOT EXISTS (SELECT 1 FROM readpast.Handlers AS h WHERE h.name = @cmd)
  BEGIN
    SET @err = CONCAT(N'@Command: unknown handler ', @cmd, N' (no worker has registered it)');
    THROW 50003, @err, 1;
  END;
  IF @Kind = 'sql' AND (@cmd IS NULL OR DATALENGTH(@cmd) = 0 OR DATALENGTH(@cmd) > ${2 * MAX_SQL_CHARS})
    ${fail(4, `@Sql: the T-SQL text (1 to ${MAX_SQL_CHARS} characters)`)}
  IF @Kind = 'sql' AND NOT EXISTS (SELECT 1 FROM readpast.Settings AS s WHERE s.name = N'${ALLOW_SQL_SETTING}' AND s.value = N'on')
    ${fail(5, '@Kind: sql tasks are off in this database (readpast migrate --allow-sql on)')}
  IF @Kind = 'procedure' AND (@cmd IS NULL OR OBJECT_ID(@cmd, 'P') IS NULL)
  BEGIN
    SET @err = CONCAT(N'@Command: no stored procedure ', @cmd, N' that you may see');
    THROW 50006, @err, 1;
  END;
  ${PAYLOAD_UTF8_BYTES}
  IF @Payload IS NOT NULL AND (ISJSON(@Payload) = 0 OR @payload_bytes > ${MAX_PAYLOAD_BYTES})
    ${fail(7, `@Payload: JSON text of at most ${MAX_PAYLOAD_BYTES} bytes in UTF-8`)}
  IF @Kind = 'procedure' AND @Payload IS NOT NULL AND LEFT(LTRIM(@Payload), 1) <> N'{'
    ${fail(8, '@Payload: a JSON object of the procedure parameters')}
  IF @Kind = 'sql' AND @Payload IS NOT NULL
    ${fail(9, '@Payload: sql tasks take no payload')}
  IF NOT ${nameCheck(QUEUE_NAME, '@Queue', MAX_QUEUE_NAME_LENGTH)}
    ${fail(10, `@Queue: ${QUEUE_NAME_RULE}`)}
  IF @Priority IS NULL OR @Priority NOT BETWEEN ${MIN_PRIORITY} AND ${MAX_PRIORITY}
    ${fail(11, `@Priority: ${MIN_PRIORITY} to ${MAX_PRIORITY}`)}
  IF @MaxAttempts IS NOT NULL AND @MaxAttempts NOT BETWEEN ${MIN_ATTEMPTS} AND ${MAX_ATTEMPTS}
    ${fail(12, `@MaxAttempts: ${MIN_ATTEMPTS} to ${MAX_ATTEMPTS}`)}
  IF @TimeoutMs IS NOT NULL AND @TimeoutMs NOT BETWEEN ${MIN_TIMEOUT_MS} AND ${MAX_TIMEOUT_MS}
    ${fail(13, `@TimeoutMs: ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`)}
  IF @DedupKey IS NOT NULL AND DATALENGTH(@DedupKey) NOT BETWEEN 2 AND ${2 * MAX_DEDUP_KEY_LENGTH}
    ${fail(14, `@DedupKey: 1 to ${MAX_DEDUP_KEY_LENGTH} characters`)}
  IF @Stage IS NOT NULL AND @BatchId IS NULL
    ${fail(15, '@Stage: a stage needs a batch (@BatchId)')}
  IF @Stage IS NOT NULL AND @Stage NOT BETWEEN ${MIN_STAGE} AND ${MAX_STAGE}
    ${fail(16, `@Stage: ${MIN_STAGE} to ${MAX_STAGE}`)}
  IF @ConcurrencyKey IS NOT NULL AND DATALENGTH(@ConcurrencyKey) NOT BETWEEN 2 AND ${2 * MAX_CONCURRENCY_KEY_LENGTH}
    ${fail(17, `@ConcurrencyKey: 1 to ${MAX_CONCURRENCY_KEY_LENGTH} characters`)}
  ${DEPENDENCY_CHECKS}
  ${TRACE_PARENT_CHECK}`;

/** Batches touched (@sdelta) → readpast.SettleBatches, as the store settles them after its writes. */
const SETTLE_TOUCHED = `DECLARE @batches nvarchar(max) = N'', @b bigint = (SELECT MIN(d.batch_id) FROM @sdelta AS d);
  WHILE @b IS NOT NULL
  BEGIN
    SET @batches = CONCAT(@batches, CASE WHEN @batches = N'' THEN N'' ELSE N',' END, @b);
    SET @b = (SELECT MIN(d.batch_id) FROM @sdelta AS d WHERE d.batch_id > @b);
  END;
  IF @batches <> N''
  BEGIN
    SET @batches = CONCAT(N'[', @batches, N']');
    EXEC readpast.SettleBatches @batches = @batches;
  END;`;

/** A store statement keyed on its @token parameter, run in a procedure whose parameter is @Token. */
const byToken = (text: string) => text.replace(/@token\b/g, '@Token');

const CALLER = `LEFT(CONCAT(ORIGINAL_LOGIN(), N' on ', HOST_NAME(), N' (', APP_NAME(), N')'), 200)`;

export interface CallerProcedure {
  name: string;
  /** the parameter list, `@Name type [= default] [OUTPUT]` each */
  params: readonly string[];
  body: string;
  /** granted to readpast_caller */
  granted: boolean;
}

export const CALLER_PROCEDURES: readonly CallerProcedure[] = [
  {
    name: 'SettleBatches',
    params: ['@batches nvarchar(max)'],
    body: SETTLE_BATCHES_WRITE,
    granted: false,
  },
  {
    name: 'ExecAsync',
    params: [
      '@Command nvarchar(4000) = NULL',
      "@Kind varchar(16) = 'handler'",
      '@Sql nvarchar(max) = NULL',
      '@Payload nvarchar(max) = NULL',
      "@Queue nvarchar(4000) = N'default'",
      '@Priority int = 0',
      '@RunAt datetime2(3) = NULL',
      '@MaxAttempts int = NULL',
      '@TimeoutMs int = NULL',
      '@DedupKey nvarchar(4000) = NULL',
      '@BatchId bigint = NULL',
      '@Stage int = NULL',
      '@Token uniqueidentifier = NULL OUTPUT',
      // last, so that positional calls written before it still bind as they did
      '@ConcurrencyKey nvarchar(4000) = NULL',
      // then the dependencies (migration 20), last for the same reason
      '@DependsOn nvarchar(max) = NULL',
      '@OnParentFailure nvarchar(10) = NULL',
      // then the trace context the task carries (migration 22), last for the same reason
      '@TraceParent varchar(100) = NULL',
    ],
    body: `SET NOCOUNT ON;
  DECLARE @cmd nvarchar(max), @err nvarchar(2048);
  ${EXEC_CHECKS}
  ${NEW_TOKEN}
  DECLARE @tasks nvarchar(max) = (SELECT 0 AS ord, @new_token AS token, @Queue AS queue, @Kind AS kind, @cmd AS command,
      @Payload AS payload, @Priority AS priority, @RunAt AS runAfter, @MaxAttempts AS maxAttempts,
      CASE WHEN @TimeoutMs IS NULL THEN 0 ELSE 1 END AS timeoutGiven, @TimeoutMs AS timeoutMs, @DedupKey AS dedupKey,
      ${CALLER} AS caller, @BatchId AS batchId,
      CASE WHEN @BatchId IS NULL THEN NULL ELSE COALESCE(@Stage, 0) END AS stage, @ConcurrencyKey AS concurrencyKey,
      JSON_QUERY(@depends) AS dependsOn, @TraceParent AS traceParent
    FOR JSON PATH, INCLUDE_NULL_VALUES);
  DECLARE @results nvarchar(max);
  EXEC ${hotName(HOT.enqueue)} @tasks = @tasks, @results = @results OUTPUT;
  SET @Token = JSON_VALUE(@results, '$[0].token');
  RETURN 0;`,
    granted: true,
  },
  {
    name: 'GetScheduler',
    params: ['@MaxParallel int = NULL', "@OnFailure varchar(16) = 'continue'", '@BatchId bigint = NULL OUTPUT'],
    body: `SET NOCOUNT ON;
  IF @MaxParallel IS NOT NULL AND @MaxParallel NOT BETWEEN ${MIN_BATCH_PARALLEL} AND ${MAX_BATCH_PARALLEL}
    ${fail(20, `@MaxParallel: ${MIN_BATCH_PARALLEL} to ${MAX_BATCH_PARALLEL}, or NULL for no cap`)}
  IF @OnFailure IS NULL OR @OnFailure COLLATE Latin1_General_100_BIN2 NOT IN ('continue', 'abort')
    ${fail(21, "@OnFailure: 'continue' or 'abort'")}
  DECLARE @ids TABLE (id bigint NOT NULL);
  INSERT INTO readpast.Batches (caller, max_parallel, on_failure, status, served_at, created_at)
    OUTPUT inserted.id INTO @ids
    VALUES (${CALLER}, @MaxParallel, @OnFailure, 'open', 0, SYSUTCDATETIME());
  SET @BatchId = (SELECT i.id FROM @ids AS i);
  RETURN 0;`,
    granted: true,
  },
  {
    name: 'ReleaseScheduler',
    params: ['@BatchId bigint'],
    body: `SET NOCOUNT ON;
  DECLARE @old varchar(10) = (SELECT b.status FROM readpast.Batches AS b WHERE b.id = @BatchId);
  IF @old IS NULL
  BEGIN
    RAISERROR(N'readpast.ReleaseScheduler: no batch %I64d', 10, 1, @BatchId);
    RETURN 1;
  END;
  UPDATE readpast.Batches SET status = 'released', released_at = SYSUTCDATETIME() WHERE id = @BatchId AND status = 'open';
  IF @@ROWCOUNT = 0
  BEGIN
    RAISERROR(N'readpast.ReleaseScheduler: batch %I64d is %s, not open', 10, 1, @BatchId, @old);
    RETURN 2;
  END;
  DECLARE @batches nvarchar(max) = CONCAT(N'[', @BatchId, N']');
  EXEC readpast.SettleBatches @batches = @batches;
  RETURN 0;`,
    granted: true,
  },
  {
    name: 'Synchronization',
    params: ['@BatchId bigint', '@Stage int = NULL', '@TimeoutSeconds int = 60'],
    // Waits holding nothing: no transaction (refused inside one), each poll a plain read of the batch's kept
    // stage counts (a seek on PK_BatchStages, a handful of rows) that keeps no lock past its statement.
    body: `SET NOCOUNT ON;
  IF @@TRANCOUNT > 0
    ${fail(30, 'readpast.Synchronization: commit first; waiting inside a transaction would hold its locks while the tasks run')}
  IF @BatchId IS NULL OR NOT EXISTS (SELECT 1 FROM readpast.Batches AS b WHERE b.id = @BatchId)
    ${fail(31, '@BatchId: no such batch (readpast.GetScheduler makes one)')}
  IF @TimeoutSeconds IS NULL OR @TimeoutSeconds NOT BETWEEN 0 AND 86400
    ${fail(32, '@TimeoutSeconds: 0 to 86400')}
  DECLARE @until datetime2(3) = DATEADD(SECOND, @TimeoutSeconds, SYSUTCDATETIME()), @rc int = 1, @waiting bit = 1;
  WHILE @waiting = 1
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM readpast.BatchStages AS s
        WHERE s.batch_id = @BatchId AND (@Stage IS NULL OR s.stage <= @Stage) AND s.pending + s.running > 0)
      SELECT @rc = 0, @waiting = 0;
    ELSE IF SYSUTCDATETIME() >= @until
      SET @waiting = 0;
    ELSE
      WAITFOR DELAY '00:00:00.100';
  END;
  SELECT t.token, t.stage, t.status, t.attempts, t.started_at AS started, t.finished_at AS ended,
      t.error_number, t.error_message
    FROM readpast.Tasks AS t
    WHERE t.batch_id = @BatchId AND (@Stage IS NULL OR t.stage <= @Stage)
    ORDER BY t.stage, t.id;
  RETURN @rc;`,
    granted: true,
  },
  {
    name: 'CancelTask',
    params: ['@Token uniqueidentifier'],
    body: `${byToken(CANCEL_WRITE)}
  ${SETTLE_TOUCHED}
  IF EXISTS (SELECT 1 FROM @o AS o) RETURN 0;
  IF EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @Token)
  BEGIN
    RAISERROR(N'readpast.CancelTask: the task has ended already', 10, 1);
    RETURN 2;
  END;
  RAISERROR(N'readpast.CancelTask: no such task', 10, 1);
  RETURN 1;`,
    granted: true,
  },
  {
    name: 'RetryTask',
    params: ['@Token uniqueidentifier'],
    body: `${byToken(RETRY_ONE_WRITE)}
  ${SETTLE_TOUCHED}
  IF @retried > 0 RETURN 0;
  IF EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @Token AND t.status IN ('dead', 'cancelled') AND ${PAST_ABORT})
  BEGIN
    RAISERROR(N'readpast.RetryTask: a task of a stage after a failed one, in a batch that aborts on failure', 10, 1);
    RETURN 3;
  END;
  IF EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @Token)
  BEGIN
    RAISERROR(N'readpast.RetryTask: only a dead or cancelled task (of a batch still running) can be retried', 10, 1);
    RETURN 2;
  END;
  RAISERROR(N'readpast.RetryTask: no such task', 10, 1);
  RETURN 1;`,
    granted: true,
  },
  {
    // an event (durable handlers: lib/engine/types/durable.ts), in the caller's transaction: sql/events.ts
    name: 'SendEvent',
    params: SEND_EVENT_PARAMS,
    body: SEND_EVENT_BODY,
    granted: true,
  },
];

/** CREATE OR ALTER PROCEDURE readpast.<name> (…) AS BEGIN … END; one batch of migration 6. */
export function createProcedure(p: CallerProcedure): string {
  return `CREATE OR ALTER PROCEDURE readpast.${p.name} (
  ${p.params.join(',\n  ')}
)
AS
BEGIN
  ${p.body}
END;`;
}

/** The seed 001 view: one row per task. */
export const ASYNC_EXEC_RESULTS_VIEW = `CREATE OR ALTER VIEW readpast.AsyncExecResults AS
  SELECT t.token, t.status, t.kind, t.command, t.queue, t.caller, t.created_at AS created, t.started_at AS started,
         t.finished_at AS ended, t.attempts, t.max_attempts, t.error_number AS last_error_number,
         t.error_message AS last_error_message, t.result
  FROM readpast.Tasks AS t;`;

export const CALLER_ROLE = 'readpast_caller';

/** The role and its grants: EXECUTE on exactly the granted procedures, SELECT on the view (each idempotent). */
export function roleBatches(): string[] {
  return [
    `IF DATABASE_PRINCIPAL_ID(N'${CALLER_ROLE}') IS NULL
  CREATE ROLE ${CALLER_ROLE} AUTHORIZATION dbo;`,
    ...CALLER_PROCEDURES.filter((p) => p.granted).map((p) => `GRANT EXECUTE ON readpast.${p.name} TO ${CALLER_ROLE};`),
    `GRANT SELECT ON readpast.AsyncExecResults TO ${CALLER_ROLE};`,
  ];
}
