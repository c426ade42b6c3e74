/**
 * The only source of time for services. Deciders never read it: handlers pass `now` in the command's
 * metadata. With CLOCK_MODE=test the offset can be moved forward for every service at once (architecture section 7).
 */
export abstract class Clock {
  abstract now(): Date;
  nowMs(): number {
    return this.now().getTime();
  }
  /** Called whenever the clock jumps ahead (only a test clock does), so time-driven jobs need not wait for their next tick. */
  onAdvance(_listener: () => void): void {
    // The system clock never jumps.
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** System time plus an offset that only ever grows, so the platform clock never runs backwards. */
export class TestClock extends Clock {
  private offsetMs = 0;
  private readonly listeners: (() => void)[] = [];

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  get offset(): number {
    return this.offsetMs;
  }

  /** Sets the total offset; a smaller value than the current one is ignored. */
  setOffset(offsetMs: number): void {
    if (offsetMs <= this.offsetMs) return;
    this.offsetMs = offsetMs;
    for (const listener of this.listeners) listener();
  }

  override onAdvance(listener: () => void): void {
    this.listeners.push(listener);
  }
}

/** A clock frozen at a given instant, for unit tests. */
export class FixedClock extends Clock {
  constructor(private instant: Date) {
    super();
  }
  now(): Date {
    return new Date(this.instant.getTime());
  }
  advance(ms: number): void {
    this.instant = new Date(this.instant.getTime() + ms);
  }
}

export type ClockMode = 'system' | 'test';

export function clockFromMode(mode: ClockMode): Clock {
  return mode === 'test' ? new TestClock() : new SystemClock();
}
