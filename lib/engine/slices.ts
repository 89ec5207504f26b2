// Long synchronous work cut into slices, so that the process's other work — every page and API request of the
// dashboard, a worker's heartbeat — runs between them: validating a flow of 10,000 nodes, writing it (the SQLite
// store's big writes, db/sqlite/big-write.ts). A slice runs at least SLICE_MS; then one turn of the event loop
// (setImmediate: pending I/O is served first) and the work goes on where it was.

/** How long a slice of long work runs before it lets the event loop run (ms). */
export const SLICE_MS = 8;

/** One piece of long work: `due` once its slice has run SLICE_MS; `pause` gives the event loop its turn. */
export class Slices {
  private from = performance.now();

  get due(): boolean {
    return performance.now() - this.from >= SLICE_MS;
  }

  /** One turn of the event loop; the next slice starts after it. */
  async pause(): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
    this.from = performance.now();
  }
}
