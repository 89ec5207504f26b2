// What a worker process needs of a store: its workers' lives, claims, settlements, and the sql/procedure
// tasks it runs (the pool, lib/engine/pool.ts, and the attempt runner, run.ts).
import type {
  AttemptResult,
  AttemptOutputBatch,
  ClaimedTask,
  ClaimOptions,
  HeartbeatInput,
  ParentResult,
  HeartbeatResult,
  OutputStream,
  SqlRunResult,
  StepsLoaded,
  StepWrite,
  ExecuteResult,
  WorkerRegistration,
  WorkerSession,
  WorkerSlot,
} from '../types';

/** The attempt a `sql` or `procedure` task runs for: the store tags and records its session with it. */
export interface RunningAttempt {
  taskId: number;
  attempt: number;
  workerId: string;
  /** the session the attempt was claimed on */
  session: number;
  /** where the attempt's output goes (SQL Server: PRINT and error messages as they arrive); absent: not recorded */
  output?: (stream: OutputStream, line: string) => void;
  /**
   * the task's parents and their results (ClaimedTask.parents): the store binds them, as the JSON text of
   * parentsJson(), to the parameter `@Parents` — of a procedure that declares it, of a sql text that names it
   * (SQLite: `@Parents` or `$Parents`) — and to nothing else
   */
  parents: ParentResult[];
  /**
   * present only while the attempt's database span records (lib/engine/tracing.ts): the store tells what it knows of
   * the work — its database, session, and (SQL Server, when readable) the longest wait and blocking sessions seen.
   * Absent: nothing is traced, and the store samples nothing.
   */
  db?: DbSpanReporter;
}

/** What a store tells of a traced sql/procedure attempt's database work; each call adds to what was told. */
export interface DbFacts {
  /** `mssql`, `sqlite` (OpenTelemetry's db.system.name) */
  system?: string;
  /** the database (db.namespace) */
  namespace?: string | null;
  /** the server's host name (server.address) */
  serverAddress?: string | null;
  /** the session that ran it (SQL Server: its SPID) */
  session?: number | null;
  /** the longest wait seen while it ran, and how long it had waited then (ms) */
  waitType?: string | null;
  waitMs?: number | null;
  /** sessions seen blocking it */
  blockedBy?: number[];
}

export interface DbSpanReporter {
  report(facts: DbFacts): void;
}

/**
 * The statements of a transactional step (`ctx.transaction`), run on the worker's own connection inside the step's
 * transaction. Parameters are named: `@name` in the text, `{ name: value }` here; bound, never spliced.
 */
export interface StepSql {
  execute<Row = Record<string, unknown>>(sql: string, params?: Record<string, unknown>): Promise<ExecuteResult<Row>>;
}

/** What a worker process needs: its workers' lives, claims, settlements, and running sql/procedure tasks. */
export interface WorkerPort {
  registerWorker(reg: WorkerRegistration): Promise<WorkerSession>;
  /** the worker stopped cleanly (state `stopped`) */
  deregisterWorker(workerId: string): Promise<void>;
  /** handler names a worker process can run (shown by the enqueue form, accepted at enqueue) */
  registerHandlers(names: string[]): Promise<void>;
  /** renew worker heartbeats and the leases of their running tasks (only leases not yet expired) */
  heartbeat(input: HeartbeatInput): Promise<HeartbeatResult>;
  /** claim at most one due task per slot; each claim starts an attempt logged in ExecutionLog */
  claim(slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]>;
  /** settle attempts; fenced on (task, worker, attempt) and an unexpired lease: false where the attempt no longer owns the task */
  finish(results: AttemptResult[]): Promise<boolean[]>;
  /**
   * append attempts' buffered log lines and latest progress, kept bounded per attempt (the last
   * MAX_ATTEMPT_LINES lines / MAX_ATTEMPT_BYTES, the rest counted as dropped); fenced like finish:
   * false where the attempt no longer owns its task (nothing is written for it)
   */
  appendAttemptOutput(batch: AttemptOutputBatch[]): Promise<boolean[]>;
  /** run a `sql` task's text on the worker's own session */
  runSql(attempt: RunningAttempt, text: string, signal: AbortSignal): Promise<SqlRunResult>;
  /** run a `procedure` task on the worker's own session; result = outputs + return code. Stores without procedures refuse. */
  runProcedure(attempt: RunningAttempt, name: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** a durable handler's recorded steps, and how many of its task's attempts ended suspended (types/durable.ts) */
  loadSteps(attempt: RunningAttempt): Promise<StepsLoaded>;
  /**
   * record one step (insert, or replace the failed record at its seq), fenced like finish: false where the attempt
   * no longer owns its task (nothing is written)
   */
  recordStep(attempt: RunningAttempt, step: StepWrite): Promise<boolean>;
  /**
   * A transactional step: run `fn` in one transaction on the worker's own connection to the store's database and
   * record `step`, with the result `fn` returns, in the same transaction (fenced like recordStep) — both commit or
   * neither. false: the attempt no longer owns its task (rolled back). `fn`'s error rolls back and is thrown; so is
   * running past `timeoutMs` (SQLite: the whole file's writers wait for it meanwhile).
   */
  transactionStep(attempt: RunningAttempt, step: StepWrite, fn: (sql: StepSql) => Promise<unknown>, timeoutMs: number): Promise<boolean>;
  /**
   * In how many ms the earliest start in a full-or-not rate window leaves it, among rate-limited queues (of
   * `queues`, or all) with a pending task (null: none): a pool whose claim came back short wakes then, so a
   * task held back by a rate limit starts when the next slot opens instead of at the next poll.
   */
  nextRateOpening(queues: string[] | null): Promise<number | null>;
  /**
   * Called after this store instance commits something that may make a task claimable
   * (enqueue, retry, a settled attempt). Lets an in-process pool wake at once.
   */
  onWake(listener: () => void): () => void;
}
