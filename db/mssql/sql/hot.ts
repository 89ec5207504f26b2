// The store's hot writes as installed procedures: enqueue, claim, finish and heartbeat. Their T-SQL is
// 35–60 KB per call (the claim's rounds, the tallies); sent as text, every call ships it and the server
// hashes it to find the cached plan. Installed, a call is the procedure's name and its parameters
// (hot-procedures.test.ts measures both), and a DBA can read the code and grant it.
//
// One definition. Each body is the statement constant itself (ENQUEUE_WRITE, CLAIM, FINISH, HEARTBEAT),
// so what the procedure runs and what the parse check, the doctor's dry run and the notes describe are one
// text. readpast.ExecAsync calls readpast.Enqueue_v<n> instead of holding a copy (sql/callers.ts).
//
// Versioned names. A procedure is one per database, and during a rolling upgrade processes of two
// versions run side by side: each calls the name its own code was written against (`Claim_v19`), never
// a body installed for another schema. A changed body is installed under a new name by a new migration
// (the version is that migration's number); the old one stays for the processes not yet upgraded, unless
// the schema change breaks it — then that migration drops it, and an old process fails with "run
// readpast migrate" (error 2812, errors.ts) instead of writing wrongly. hot-procedures.test.ts pins
// each body to its name, so a change cannot slip in under a name already installed somewhere.
//
// Parameters keep the statements' names and types. Result sets are the statements' own, except
// Enqueue's: its results come back as JSON in @results (OUTPUT), so that ExecAsync, which runs it for
// T-SQL callers, returns no result set of its own. SET NOCOUNT and XACT_ABORT inside a procedure end
// with it, as they ended with sp_executesql.
import { CLAIM } from './claim';
import { ENQUEUE_WRITE } from './enqueue';
import { FINISH } from './settle';
import { HEARTBEAT } from './workers';

export interface HotProcedure {
  /** the base name: readpast.<name>_v<version> */
  name: string;
  /** the migration that installs this body */
  version: number;
  /** `@name type [= default] [OUTPUT]` each */
  params: readonly string[];
  body: string;
}

/**
 * ENQUEUE_WRITE, its results as JSON [{ord, token, created}] in @results (in no particular order: each
 * carries its ord; no ORDER BY in a subquery, which T-SQL allows only beside TOP, OFFSET or FOR XML).
 */
const ENQUEUE_BODY = `${ENQUEUE_WRITE}
  SET @results = (SELECT i.ord, i.token, CASE WHEN i.existing = 1 THEN 0 ELSE 1 END AS created
    FROM @in AS i FOR JSON PATH);`;

export const HOT = {
  enqueue: {
    name: 'Enqueue',
    version: 22,
    params: ['@tasks nvarchar(max)', '@flow_id bigint = NULL', '@results nvarchar(max) = NULL OUTPUT'],
    body: ENQUEUE_BODY,
  },
  claim: {
    name: 'Claim',
    version: 22,
    params: ['@worker_id nvarchar(256)', '@lease_ms int', '@queues nvarchar(max) = NULL', '@unbatched_served bigint'],
    body: CLAIM,
  },
  finish: { name: 'Finish', version: 22, params: ['@results nvarchar(max)'], body: FINISH },
  heartbeat: {
    name: 'Heartbeat',
    version: 17,
    params: ['@workers nvarchar(max)', '@running nvarchar(max)', '@lease_ms int'],
    body: HEARTBEAT,
  },
} as const satisfies Record<string, HotProcedure>;

export const HOT_PROCEDURES: readonly HotProcedure[] = Object.values(HOT);

/** `readpast.Claim_v19`: what the store calls. */
export function hotName(p: HotProcedure): string {
  return `readpast.${p.name}_v${p.version}`;
}

/** CREATE OR ALTER PROCEDURE readpast.<name>_v<version> (…) AS BEGIN … END; one migration batch. */
export function createHotProcedure(p: HotProcedure): string {
  return `CREATE OR ALTER PROCEDURE ${hotName(p)} (
  ${p.params.join(',\n  ')}
)
AS
BEGIN
  ${p.body}
END;`;
}

/**
 * `EXEC readpast.X_v17 @a = @a, …, @o = @o OUTPUT;`: a call as statement text, for the first call of a store
 * that does not migrate, sent after SCHEMA_GUARD in the same request (connection.ts callOn).
 */
export function execText(name: string, params: readonly string[], outputs: readonly string[] = []): string {
  const args = [...params.map((n) => `@${n} = @${n}`), ...outputs.map((n) => `@${n} = @${n} OUTPUT`)].join(', ');
  return `EXEC ${name} ${args};`;
}
