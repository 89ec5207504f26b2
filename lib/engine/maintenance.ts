// Housekeeping any process with a pool may run (all of it is idempotent, so several processes may):
// rescue expired leases, wake suspended tasks whose time has come (durable handlers), mark silent workers
// lost, sample queue depth, prune old finished tasks; and, on a timer of its own just after every whole
// second, fire the due schedules (exactly once per tick however many processes check: MaintenancePort.fireDue).
import type { Logger } from './logger';
import { errorInfo } from './retry';
import { type Send, startSend } from './tracing';
import type { MaintenancePort } from './ports';

export interface MaintenanceOptions {
  retentionMs: number;
  staleWorkerMs: number;
  logger: Logger;
  /** how often leases are checked (default 1 s) */
  everyMs?: number;
  /** how often old tasks are pruned (default 1 h; first run a minute after start) */
  pruneEveryMs?: number;
  /** check due schedules (default true) */
  schedules?: boolean;
  /** how often the alert rules are judged (default 5 s; 0: never) */
  alertsEveryMs?: number;
}

export class Maintenance {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private fireTimer: NodeJS.Timeout | null = null;
  private firing = false;
  private nextPrune: number;
  private nextAlerts = 0;

  constructor(
    private readonly port: MaintenancePort,
    private readonly opts: MaintenanceOptions,
  ) {
    this.nextPrune = Date.now() + 60_000;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.opts.everyMs ?? 1000);
    this.timer.unref?.();
    if (this.opts.schedules !== false) this.scheduleFire();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.fireTimer) clearTimeout(this.fireTimer);
    this.fireTimer = null;
  }

  /** the next schedule check: a few tens of ms after the next whole second (ticks fall on whole seconds) */
  private scheduleFire(): void {
    const delay = 1000 - (Date.now() % 1000) + 20 + Math.floor(Math.random() * 40);
    this.fireTimer = setTimeout(() => {
      void this.fire().finally(() => {
        if (this.fireTimer) this.scheduleFire();
      });
    }, delay);
    this.fireTimer.unref?.();
  }

  /** one check of the due schedules; exposed for tests */
  async fire(): Promise<void> {
    if (this.firing) return;
    this.firing = true;
    // each schedule that fires: a `send <queue>` span, whose context its tasks store (no SDK: nothing)
    const sends: Send[] = [];
    const ended = new Map<string, Send>();
    try {
      const reports = await this.port.fireDue(undefined, (f) => {
        const send = startSend(f.queue, f.count, null, { 'readpast.schedule': f.schedule });
        sends.push(send);
        ended.set(f.schedule, send);
        return send.trace;
      });
      const fired = new Map(reports.map((r) => [r.schedule, r.fired.map((f) => f.token)]));
      for (const [schedule, send] of ended) send.end({ tokens: fired.get(schedule) ?? [] });
      sends.length = 0;
      for (const r of reports) {
        if (r.fired.length) {
          this.opts.logger.info(
            { schedule: r.schedule, fired: r.fired.map((f) => ({ token: f.token, fireAt: f.fireAt.toISOString() })) },
            'schedule fired',
          );
        }
        if (r.missed || r.overlapped) {
          this.opts.logger.warn({ schedule: r.schedule, missed: r.missed, overlapped: r.overlapped }, 'schedule ticks skipped');
        }
      }
    } catch (err) {
      for (const send of sends) send.end({ error: err });
      this.opts.logger.warn({ err: errorInfo(err) }, 'schedule check failed');
    } finally {
      this.firing = false;
    }
  }

  /** judge the alert rules when due (lib/engine/alerts.ts); a failure is logged and does not stop the round */
  private async alerts(): Promise<void> {
    const every = this.opts.alertsEveryMs ?? 5_000;
    if (every <= 0 || Date.now() < this.nextAlerts) return;
    this.nextAlerts = Date.now() + every;
    try {
      const fired = await this.port.evaluateAlerts();
      if (fired.length) {
        this.opts.logger.info({ alerts: fired.map((f) => ({ rule: f.ruleName, key: f.dedupKey, token: f.token })) }, 'alerts fired');
      }
    } catch (err) {
      this.opts.logger.warn({ err: errorInfo(err) }, 'alert evaluation failed');
    }
  }

  /** one round; exposed for tests and the drain route */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const rescued = await this.port.rescueExpired();
      if (rescued.retried || rescued.dead) this.opts.logger.warn(rescued, 'rescued attempts whose lease expired');
      else if (rescued.released) this.opts.logger.info(rescued, 'released tasks whose claim lapsed before they started');
      // durable handlers' sleeps that ended and event waits that timed out: their tasks pending again
      await this.port.wakeDue();
      const lost = await this.port.markLostWorkers(this.opts.staleWorkerMs);
      if (lost) this.opts.logger.warn({ lost }, 'workers stopped heartbeating');
      await this.port.sampleDepth();
      await this.alerts();
      if (Date.now() >= this.nextPrune) {
        this.nextPrune = Date.now() + (this.opts.pruneEveryMs ?? 3600_000);
        const pruned = await this.port.prune(new Date(Date.now() - this.opts.retentionMs));
        if (pruned.tasks) this.opts.logger.info(pruned, 'pruned finished tasks');
      }
    } catch (err) {
      this.opts.logger.warn({ err: errorInfo(err) }, 'maintenance round failed');
    } finally {
      this.running = false;
    }
  }
}
