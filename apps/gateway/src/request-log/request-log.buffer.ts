/** Why an entry never reached the table: the buffer was full, its app had its share, or its write failed. */
export type RequestLogDropReason = 'full' | 'app_share' | 'write_failed';

export interface RequestLogBufferOptions<T> {
  /** Entries held at most, waiting and being written together: the memory bound. */
  capacity: number;
  /** One app's entries held at most, so one app's flood cannot crowd the others out. */
  maxPerApp: number;
  /** Rows per write (one multi-row INSERT each). */
  batchSize: number;
  write(batch: T[]): Promise<void>;
  dropped(reason: RequestLogDropReason, count: number): void;
  written(count: number): void;
  /** A write failed (its batch and what was taken with it are dropped). */
  failed(error: unknown): void;
}

/**
 * What the gateway knows of requests, between the request and the table (docs/adr/0216-request-log-off-the-request-path.md):
 * `push` is all a request pays (an array push and a count), and never waits or fails; entries past
 * the capacity, or past the app's share, are dropped and counted. `flush` writes what is held in
 * batches, one write at a time; a failed write drops its entries (counted) rather than keep them:
 * the log is lossy by design, the memory bound is not.
 */
export class RequestLogBuffer<T extends { appId: string }> {
  private pending: T[] = [];
  private writing = 0;
  private readonly perApp = new Map<string, number>();
  private flushing: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private soon = false;

  constructor(private readonly options: RequestLogBufferOptions<T>) {}

  /** Entries held now (waiting and being written). */
  get size(): number {
    return this.pending.length + this.writing;
  }

  /** Takes the entry if there is room: O(1), never waits. A full batch starts a flush on a later turn of the event loop. */
  push(entry: T): boolean {
    if (this.size >= this.options.capacity) {
      this.options.dropped('full', 1);
      return false;
    }
    const ofApp = this.perApp.get(entry.appId) ?? 0;
    if (ofApp >= this.options.maxPerApp) {
      this.options.dropped('app_share', 1);
      return false;
    }
    this.perApp.set(entry.appId, ofApp + 1);
    this.pending.push(entry);
    if (this.pending.length >= this.options.batchSize && !this.soon) {
      this.soon = true;
      setImmediate(() => {
        this.soon = false;
        void this.flush();
      });
    }
    return true;
  }

  /** Flushes every `everyMs` until `close`. */
  start(everyMs: number): void {
    this.timer = setInterval(() => void this.flush(), everyMs);
    this.timer.unref();
  }

  /** Writes everything held when it is called (and what arrives meanwhile); one flush runs at a time. */
  flush(): Promise<void> {
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    this.flushing = this.drain().finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      const taken = this.pending;
      this.pending = [];
      this.writing = taken.length;
      for (const entry of taken) this.release(entry.appId);
      try {
        for (let from = 0; from < taken.length; from += this.options.batchSize) {
          const batch = taken.slice(from, from + this.options.batchSize);
          try {
            await this.options.write(batch);
            this.options.written(batch.length);
          } catch (error) {
            // Postgres down or slow: what was taken goes, so the next requests find room.
            this.options.failed(error);
            this.options.dropped('write_failed', taken.length - from);
            break;
          } finally {
            this.writing = Math.max(0, taken.length - from - batch.length);
          }
        }
      } finally {
        this.writing = 0;
      }
    } while (this.again || this.pending.length >= this.options.batchSize);
  }

  private release(appId: string): void {
    const left = (this.perApp.get(appId) ?? 1) - 1;
    if (left > 0) this.perApp.set(appId, left);
    else this.perApp.delete(appId);
  }
}
