// The store's hot writes as installed procedures: enqueue, claim, finish and heartbeat. Their T-SQL is
// 35–60 KB per call (the claim's rounds, the tallies); sent as text, every call ships it and the server
// hashes it to find the cached plan. Installed, a call is the procedure's name and its parameters
// (hot-procedures.test.ts measures both), and a DBA can read the code and grant it.
//
// One definition. Each body is the statement constant itself (ENQUEUE_WRITE, CLAIM, FINISH, HEARTBEAT),
// so what the procedure runs and what the parse check, the doctor's dry run and the notes describe are one
// text. readpast.ExecAsync calls readpast.Enqueue_<hash> instead of holding a copy (sql/callers.ts).
//
// Names by content. A procedure is one per database, and during a rolling upgrade processes of two
// releases run side by side: each calls the names its own code was built with, never a body installed for
// another schema. So each name carries a short hash of its definition (`readpast.Claim_3f9a1c2e`: the first
// 8 hex digits of the sha-256 of the definition without its name, hotHash): a changed body is a new name,
// with nothing to do by hand. `readpast migrate` installs the names of its own code after the migrations
// (code-objects.ts) and records them in readpast.CodeObjects; workers record the names they call
// (Workers.code); a name no registered worker has used for the retention is dropped by a later migrate.
// A process whose names are not installed fails with "run readpast migrate" naming them (errors.ts:
// 2812, and the worker's registration checks them first) instead of running another body.
//
// Parameters keep the statements' names and types. Result sets are the statements' own, except
// Enqueue's: its results come back as JSON in @results (OUTPUT), so that ExecAsync, which runs it for
// T-SQL callers, returns no result set of its own. SET NOCOUNT and XACT_ABORT inside a procedure end
// with it, as they ended with sp_executesql.
import { createHash } from 'node:crypto';
import { CLAIM } from './claim';
import { ENQUEUE_WRITE } from './enqueue';
import { FINISH } from './settle';
import { HEARTBEAT } from './workers';

export interface HotProcedure {
  /** the base name: readpast.<name>_<hash> */
  name: string;
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
    params: ['@tasks nvarchar(max)', '@flow_id bigint = NULL', '@results nvarchar(max) = NULL OUTPUT'],
    body: ENQUEUE_BODY,
  },
  claim: {
    name: 'Claim',
    params: ['@slots nvarchar(max)', '@lease_ms int', '@queues nvarchar(max) = NULL', '@unbatched_served bigint'],
    body: CLAIM,
  },
  finish: { name: 'Finish', params: ['@results nvarchar(max)'], body: FINISH },
  heartbeat: {
    name: 'Heartbeat',
    params: ['@workers nvarchar(max)', '@running nvarchar(max)', '@lease_ms int'],
    body: HEARTBEAT,
  },
} as const satisfies Record<string, HotProcedure>;

export const HOT_PROCEDURES: readonly HotProcedure[] = Object.values(HOT);

/** The definition after the name: what the name's hash is taken of. */
function definition(p: HotProcedure): string {
  return `(
  ${p.params.join(',\n  ')}
)
AS
BEGIN
  ${p.body}
END;`;
}

const hashes = new Map<HotProcedure, string>();

/** sha-256 (hex) of the definition without its name. */
export function hotHash(p: HotProcedure): string {
  let h = hashes.get(p);
  if (!h) {
    h = createHash('sha256').update(definition(p)).digest('hex');
    hashes.set(p, h);
  }
  return h;
}

/** `Claim_3f9a1c2e`: the procedure's name in schema readpast, its base and the first 8 hex digits of hotHash. */
export function hotBareName(p: HotProcedure): string {
  return `${p.name}_${hotHash(p).slice(0, 8)}`;
}

/** The hot procedures this code calls, by their names in schema readpast (what a worker records: Workers.code). */
export const HOT_BARE_NAMES: readonly string[] = HOT_PROCEDURES.map(hotBareName);

/** `readpast.Claim_3f9a1c2e`: what the store calls. */
export function hotName(p: HotProcedure): string {
  return `readpast.${hotBareName(p)}`;
}

/** CREATE OR ALTER PROCEDURE readpast.<name>_<hash> (…) AS BEGIN … END; one batch of the code-object step. */
export function createHotProcedure(p: HotProcedure): string {
  return `CREATE OR ALTER PROCEDURE ${hotName(p)} ${definition(p)}`;
}

/**
 * `EXEC readpast.X_3f9a1c2e @a = @a, …, @o = @o OUTPUT;`: a call as statement text, for the first call of a store
 * that does not migrate, sent after SCHEMA_GUARD in the same request (connection.ts callOn).
 */
export function execText(name: string, params: readonly string[], outputs: readonly string[] = []): string {
  const args = [...params.map((n) => `@${n} = @${n}`), ...outputs.map((n) => `@${n} = @${n} OUTPUT`)].join(', ');
  return `EXEC ${name} ${args};`;
}
