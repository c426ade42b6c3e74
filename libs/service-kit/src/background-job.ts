import type { Clock } from '#platform/clock';
import { log } from './logger';

/**
 * A time-driven job of a service (sweeps, pruning): run every `everyMs` and whenever the test clock
 * jumps, so due work happens as if the time had passed (architecture section 7). Runs never overlap and
 * none is lost: a call while a run is under way makes that run go round once more. A failing run
 * is logged and retried at the next call.
 */
export class BackgroundJob {
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly name: string,
    private readonly job: () => Promise<void>,
  ) {}

  start(everyMs: number, clock: Clock): void {
    this.timer = setInterval(() => void this.run(), everyMs);
    this.timer.unref();
    clock.onAdvance(() => void this.run());
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

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
      try {
        await this.job();
      } catch (error) {
        log('error', `${this.name} failed`, { error: String(error) });
      }
    } while (this.again);
  }
}
