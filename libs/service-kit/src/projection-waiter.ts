import type { DomainEvent } from '#platform/contracts';

type Waiter = { match: (event: DomainEvent) => boolean; resolve: () => void };

/**
 * Lets a request wait until this process has applied an event matching a condition, so that calls
 * such as the simulator's return only once the platform has taken the effect in (no sleeps in tests).
 */
export class ProjectionWaiter {
  private waiters = new Set<Waiter>();

  notify(event: DomainEvent): void {
    for (const waiter of this.waiters) {
      if (waiter.match(event)) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  /** Resolves true when a matching event is applied, false after timeoutMs. Register before causing the event. */
  waitFor(match: (event: DomainEvent) => boolean, timeoutMs: number): { promise: Promise<boolean>; cancel: () => void } {
    let waiter!: Waiter;
    let timer!: NodeJS.Timeout;
    const promise = new Promise<boolean>((resolve) => {
      waiter = {
        match,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
    });
    this.waiters.add(waiter);
    return {
      promise,
      cancel: () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      },
    };
  }
}
