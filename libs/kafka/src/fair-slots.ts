export interface FairSlotsLimits {
  /** Requests handled at once, over every app. */
  maxInFlight: number;
  /** Requests of one app handled at once. */
  maxInFlightPerApp: number;
  /** Requests of one app waiting for a slot; one more is refused. */
  maxWaitingPerApp: number;
  /** Requests waiting in all: at this many the server takes no more from Kafka until one starts. */
  maxWaiting: number;
}

/** What becomes of an offered request: it starts now, waits for a slot, or is refused at once. */
export type SlotOffer = 'run' | 'wait' | 'refuse';

/**
 * The defaults for a server of `maxInFlight` slots: half of them per app; four times as many waiting
 * per app (above the request burst the gateway admits for one app: 200 by default, so such a burst
 * is never refused); sixteen times as many waiting in all, so one app's waiting list never holds the
 * fetch back for the others.
 */
export function defaultSlotLimits(maxInFlight: number, overrides: Partial<Omit<FairSlotsLimits, 'maxInFlight'>> = {}): FairSlotsLimits {
  return {
    maxInFlight,
    maxInFlightPerApp: Math.min(maxInFlight, overrides.maxInFlightPerApp ?? Math.max(1, Math.floor(maxInFlight / 2))),
    maxWaitingPerApp: overrides.maxWaitingPerApp ?? 4 * maxInFlight,
    maxWaiting: overrides.maxWaiting ?? 16 * maxInFlight,
  };
}

/**
 * A service's request slots shared fairly between the apps its requests are made for (ADR 0206):
 * one app holds at most `maxInFlightPerApp` of them, a freed slot goes to the next app in turn that
 * has a request waiting (round-robin), and an app with `maxWaitingPerApp` requests waiting has the
 * next one refused rather than queued. Requests without an app (`null`: internal calls) are never
 * held to an app's share nor refused; they take their turn like an app. Pure: the caller runs what
 * it is told to run and reports each request's end.
 */
export class FairSlots<T> {
  private inFlight = 0;
  private waitingCount = 0;
  private readonly running = new Map<string | null, number>();
  /** Waiting requests per app, the apps in the order of their turns. */
  private readonly queues = new Map<string | null, T[]>();

  constructor(readonly limits: FairSlotsLimits) {}

  /** Requests handled now. */
  get busy(): number {
    return this.inFlight;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Whether the server should stop taking requests until one starts. */
  get full(): boolean {
    return this.waitingCount >= this.limits.maxWaiting;
  }

  /** Offers a request of `app`: on `run` its slot is taken, on `wait` it is queued until `release` hands it out. */
  offer(app: string | null, item: T): SlotOffer {
    const queue = this.queues.get(app);
    if (!queue && this.mayStart(app)) {
      this.start(app);
      return 'run';
    }
    if (app !== null && (queue?.length ?? 0) >= this.limits.maxWaitingPerApp) return 'refuse';
    if (queue) queue.push(item);
    else this.queues.set(app, [item]);
    this.waitingCount += 1;
    return 'wait';
  }

  /** A request of `app` is done: returns the waiting request that takes its slot (already counted as running), if any. */
  release(app: string | null): { app: string | null; item: T } | null {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const held = (this.running.get(app) ?? 1) - 1;
    if (held > 0) this.running.set(app, held);
    else this.running.delete(app);
    for (const [next, queue] of this.queues) {
      if (!this.mayStart(next)) continue;
      const item = queue.shift() as T;
      // Served: to the back of the turns, or out of them when nothing of it waits.
      this.queues.delete(next);
      if (queue.length > 0) this.queues.set(next, queue);
      this.waitingCount -= 1;
      this.start(next);
      return { app: next, item };
    }
    return null;
  }

  private mayStart(app: string | null): boolean {
    if (this.inFlight >= this.limits.maxInFlight) return false;
    return app === null || (this.running.get(app) ?? 0) < this.limits.maxInFlightPerApp;
  }

  private start(app: string | null): void {
    this.inFlight += 1;
    this.running.set(app, (this.running.get(app) ?? 0) + 1);
  }
}
