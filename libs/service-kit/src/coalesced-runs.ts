/**
 * Runs a background job so that calls never overlap and none is lost: a call while a run is under
 * way makes that run go round once more (a clock jump during a sweep still gets its own sweep).
 */
export class CoalescedRuns {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly job: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => (this.running = null));
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.job();
    } while (this.again);
  }
}
