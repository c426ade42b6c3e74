/**
 * Open listen streams an app may hold on one gateway replica. Each holds one of the dispatcher's
 * request slots in a long poll, so an app must not be able to take them all.
 */
export const MAX_LISTEN_STREAMS_PER_APP = 4;

/**
 * The event streams this gateway serves, so that shutting down ends them (an open stream would
 * otherwise keep `server.close()` waiting for ever; a client resumes on another replica), counted per
 * app for MAX_LISTEN_STREAMS_PER_APP.
 */
/** One stream's place: how shutting down stops it, and its release when it ends. */
export interface ListenPlace {
  onStop(stop: () => void): void;
  release(): void;
}

export class ListenStreams {
  private readonly stops = new Set<() => void>();
  private readonly perApp = new Map<string, number>();
  private closed = false;

  /**
   * Takes one of the app's places, or null when it has them all; the place is the app's until
   * released (a connection being opened counts, so simultaneous requests cannot pass the limit).
   */
  reserve(appId: string): ListenPlace | null {
    if (this.openFor(appId) >= MAX_LISTEN_STREAMS_PER_APP) return null;
    this.perApp.set(appId, this.openFor(appId) + 1);
    let stop: (() => void) | null = null;
    let released = false;
    return {
      onStop: (fn) => {
        stop = fn;
        this.stops.add(fn);
        if (this.closed) fn();
      },
      release: () => {
        if (released) return;
        released = true;
        if (stop) this.stops.delete(stop);
        const left = this.openFor(appId) - 1;
        if (left > 0) this.perApp.set(appId, left);
        else this.perApp.delete(appId);
      },
    };
  }

  /** Streams the app has open on this replica. */
  openFor(appId: string): number {
    return this.perApp.get(appId) ?? 0;
  }

  get size(): number {
    return this.stops.size;
  }

  closeAll(): void {
    this.closed = true;
    for (const stop of [...this.stops]) stop();
    this.stops.clear();
  }
}
