/**
 * The event streams this gateway serves, so that shutting down ends them: an open stream would
 * otherwise keep `server.close()` waiting for ever. A client resumes on another replica.
 */
export class ListenStreams {
  private readonly stops = new Set<() => void>();
  private closed = false;

  /** Registers a stream's stop; returns the function that unregisters it. */
  add(stop: () => void): () => void {
    if (this.closed) stop();
    this.stops.add(stop);
    return () => this.stops.delete(stop);
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
