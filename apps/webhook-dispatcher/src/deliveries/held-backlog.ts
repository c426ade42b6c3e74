/**
 * Held attempts claimed and not yet recorded. Holding sends nothing and takes no slot, so without
 * this bound the claims of failing endpoints' backlogs (every pending retry falls due and is held)
 * could run ahead of their recording and keep any number of claimed deliveries, payloads included,
 * in memory. A claim holds only what fits under the bound; a recording makes room.
 */
export class HeldBacklog {
  private unrecorded = 0;

  constructor(
    /** Held attempts waiting to be recorded, at most. */
    readonly max: number,
    /** What one claim holds at most. */
    readonly perClaim: number,
  ) {}

  /** How many deliveries the next claim may hold. */
  room(): number {
    return Math.max(0, Math.min(this.perClaim, this.max - this.unrecorded));
  }

  claimed(count: number): void {
    this.unrecorded += count;
  }

  recorded(count: number): void {
    this.unrecorded = Math.max(0, this.unrecorded - count);
  }

  get size(): number {
    return this.unrecorded;
  }
}
