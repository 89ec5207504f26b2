// Reads of tasks, attempts, workers and metrics as the JSON views the API, the dashboard and `--json` show,
// built from the typed read model (store.reads).
import { NotFoundError } from '../engine/errors';
import type { AttemptFilter, FailureGroupQuery, LiveStatus, TaskFilter } from '../engine/types';
import { attemptOutput, type AttemptOutputJson } from './attempt-output';
import type { Core } from './core';
import { failureGroupPage, taskFingerprint } from './failure-groups';
import { historyJson, sparklinesJson, type HistoryRequest } from './history';
import {
  attemptJson,
  claimedJson,
  metricsJson,
  runningJson,
  statsJson,
  statusJson,
  taskJson,
  workerJson,
  type HandlersJson,
  type StatusJson,
} from './present';
import { procedureParameters } from './procedures';
import { whyTask } from './why';

/** tasks claimed ahead read for the Running page's section (each pool holds at most its prefetch) */
const MAX_CLAIMED_READ = 5_000;

/** dead tasks listed beside the failure groups */
export const MAX_DEAD_LISTED = 200;

export class TaskReads {
  constructor(private readonly core: Core) {}

  private get reads() {
    return this.core.store.reads;
  }

  async status(token: unknown): Promise<StatusJson> {
    const t = await this.reads.getTask(this.core.checkToken(token));
    if (!t) throw new NotFoundError(`no task with token ${String(token)}`);
    return statusJson(t);
  }

  async stats() {
    // one after the other: at once, a fresh connection pool (`readpast stats`) logs in twice
    const queues = await this.reads.countsByQueue();
    const workers = await this.reads.listWorkers();
    return statsJson(queues, workers);
  }

  /** tasks newest first, keyset-paginated */
  async tasks(filter: TaskFilter) {
    const page = await this.reads.listTasks(filter);
    const scan = page.partial ? { partial: true, scanned: page.scanned ?? null } : {};
    return { items: page.items.map(taskJson), nextCursor: page.nextCursor, ...scan };
  }

  /** ExecutionLog: every attempt, newest first, keyset-paginated */
  async attempts(filter: AttemptFilter) {
    const page = await this.reads.listAttempts(filter);
    return { items: page.items.map(attemptJson), nextCursor: page.nextCursor };
  }

  /**
   * ExecutionStatus: the attempts running now, with the server's request state where it can be read (`liveStatus`);
   * and apart, the tasks pools claimed ahead and have not started, by the worker that claimed them (`claimed`)
   */
  async running() {
    // the list first: a live read that fails inside it is what the status then reports
    const items = (await this.reads.listRunning()).map(runningJson);
    const claimed = await this.claimedAhead();
    return { items, claimed, liveStatus: await this.liveStatus() };
  }

  /** Tasks claimed ahead now (a pool holds at most its prefetch), by claimer; at most MAX_CLAIMED_READ read. */
  private async claimedAhead() {
    const tasks = [];
    for (let cursor: number | undefined; tasks.length < MAX_CLAIMED_READ; ) {
      const page = await this.reads.listTasks({ status: 'claimed', cursor, limit: 500 });
      tasks.push(...page.items);
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    return claimedJson(tasks);
  }

  /** `GET /api/tasks/{token}/logs`: an attempt's log lines after `after` and its progress (attempt-output.ts) */
  attemptOutput(token: string, query: { attempt?: unknown; after?: unknown }): Promise<AttemptOutputJson> {
    return attemptOutput(this.reads, token, query);
  }

  async metrics(since: Date, until: Date) {
    return { points: metricsJson(await this.reads.metrics(since), since, until) };
  }

  /** History of a range (15m … 30d), bucketed to it, optionally of one queue or command (lib/api/history.ts). */
  history(input: HistoryRequest) {
    return historyJson(this.reads, input);
  }

  /** The Prometheus text of one scrape (GET /metrics; lib/api/metrics.ts, loaded on first use). */
  async prometheus(): Promise<string> {
    const { prometheusText } = await import('./metrics');
    return prometheusText(this.reads);
  }

  /** Succeeded per queue over the last hour or day: the Queues page's sparklines. */
  queueSparklines(input: { range?: string }) {
    return sparklinesJson(this.reads, input);
  }

  /** Failed & poison: recent failures grouped by message, and the newest dead tasks. */
  async failures(filter: FailureGroupQuery) {
    // the groups first: they fingerprint dead tasks that have none yet (lib/api/failure-groups.ts)
    const groups = await failureGroupPage(this.core.store, filter);
    const dead = await this.reads.listTasks({
      status: 'dead',
      queue: filter.queue,
      q: filter.q ?? filter.message,
      command: filter.command,
      limit: MAX_DEAD_LISTED,
    });
    const items = dead.items.map((t) => ({ ...taskJson(t), fingerprint: taskFingerprint(taskJson(t)) }));
    return {
      groups: groups.items,
      nextCursor: groups.nextCursor,
      dead: filter.fingerprint ? items.filter((t) => t.fingerprint === filter.fingerprint) : items,
    };
  }

  /** every registered worker, and whether live session state (SQL Server DMVs) is visible */
  async workers() {
    const now = Date.now();
    const [workers, liveStatus] = await Promise.all([this.reads.listWorkers(), this.liveStatus()]);
    return { workers: workers.map((w) => workerJson(w, now)), liveStatus };
  }

  /** null where the database has no live session state (SQLite) */
  liveStatus(): Promise<LiveStatus | null> {
    const { sqlServer } = this.core.store;
    return sqlServer ? sqlServer.liveStatus() : Promise.resolve(null);
  }

  /** handler names of this process and of every worker process; the kinds and dialect of the database */
  async handlers(): Promise<HandlersJson> {
    const { registry, store } = this.core;
    const remote = await this.reads.knownHandlers();
    const handlers = [...new Set([...registry.names(), ...remote])].sort();
    return { handlers, kinds: [...store.kinds], dialect: store.dialect };
  }

  /** the parameters the enqueue form renders fields for (`rawName` may still be percent-encoded) */
  procedureParameters(rawName: string) {
    return procedureParameters(this.core.store, rawName);
  }

  why(token: string) {
    return whyTask(this.reads, token);
  }
}
