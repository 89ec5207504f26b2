// Waking for a rate limit: when a claim leaves workers idle, the pool asks the store when the earliest start in
// a rate window of a queue with pending tasks leaves it, and wakes then — a task a rate limit holds back starts
// when the next slot opens, not at the next poll, and workers never spin on it meanwhile (the claim skips it).
import type { Logger } from './logger';
import type { WorkerPort } from './ports';
import { errorInfo } from './retry';

/** Wake this long after the slot opens: the store's clock and the timer's may differ by a few ms. */
const MARGIN_MS = 5;
/** A slot further off than this is left to the regular poll. */
const MAX_WAIT_MS = 60_000;

export class RateWake {
  private timer: NodeJS.Timeout | null = null;
  private at = Number.POSITIVE_INFINITY;
  private asking = false;
  private stopped = false;

  constructor(
    private readonly worker: Pick<WorkerPort, 'nextRateOpening'>,
    private readonly queues: string[] | null,
    private readonly wake: () => void,
    private readonly log: Logger,
  ) {}

  /** After a claim that left workers idle: set a timer for the next slot to open (one at a time, the earliest). */
  check(): void {
    if (this.asking || this.stopped) return;
    this.asking = true;
    this.worker.nextRateOpening(this.queues).then(
      (ms) => {
        this.asking = false;
        if (ms === null || this.stopped || ms > MAX_WAIT_MS) return;
        const at = Date.now() + ms + MARGIN_MS;
        if (this.timer && this.at <= at) return;
        if (this.timer) clearTimeout(this.timer);
        this.at = at;
        this.timer = setTimeout(() => {
          this.timer = null;
          this.at = Number.POSITIVE_INFINITY;
          this.wake();
        }, at - Date.now());
        this.timer.unref?.();
      },
      (err: unknown) => {
        this.asking = false;
        this.log.warn({ err: errorInfo(err) }, 'could not read when the next rate slot opens; the poll will claim');
      },
    );
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
