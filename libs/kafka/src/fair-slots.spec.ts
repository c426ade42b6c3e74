import { defaultSlotLimits, FairSlots } from './fair-slots';

/** Offers each request and returns what became of it. */
function offerAll(slots: FairSlots<string>, app: string | null, count: number, prefix = app ?? 'internal') {
  return Array.from({ length: count }, (_, i) => slots.offer(app, `${prefix}-${i}`));
}

describe('FairSlots (a service’s request slots shared between apps)', () => {
  it('defaults to half the slots per app, four times as many waiting per app, and sixteen times as many waiting in all', () => {
    expect(defaultSlotLimits(64)).toEqual({ maxInFlight: 64, maxInFlightPerApp: 32, maxWaitingPerApp: 256, maxWaiting: 1024 });
    expect(defaultSlotLimits(1)).toEqual({ maxInFlight: 1, maxInFlightPerApp: 1, maxWaitingPerApp: 4, maxWaiting: 16 });
    expect(defaultSlotLimits(8, { maxInFlightPerApp: 20, maxWaitingPerApp: 2 })).toEqual({
      maxInFlight: 8,
      maxInFlightPerApp: 8,
      maxWaitingPerApp: 2,
      maxWaiting: 128,
    });
  });

  it('a burst of one app cannot take every slot: it holds its share, and the rest of the burst waits', () => {
    const slots = new FairSlots<string>(defaultSlotLimits(8));
    const burst = offerAll(slots, 'app_noisy', 12);
    expect(burst.filter((o) => o === 'run')).toHaveLength(4);
    expect(burst.filter((o) => o === 'wait')).toHaveLength(8);
    expect([slots.busy, slots.waiting]).toEqual([4, 8]);
    // The other half is there for other apps at once.
    expect(offerAll(slots, 'app_quiet', 4)).toEqual(['run', 'run', 'run', 'run']);
  });

  it('a quiet app’s request gets the next free slot even while a noisy app has many waiting', () => {
    const slots = new FairSlots<string>(defaultSlotLimits(4));
    expect(offerAll(slots, 'app_noisy', 2)).toEqual(['run', 'run']);
    expect(offerAll(slots, 'app_other', 2)).toEqual(['run', 'run']);
    // Every slot busy: the noisy app queues four, then the quiet app one.
    expect(offerAll(slots, 'app_noisy', 4, 'noisy-waiting')).toEqual(['wait', 'wait', 'wait', 'wait']);
    expect(slots.offer('app_quiet', 'quiet-0')).toBe('wait');
    // Another app's request ends: the noisy app is at its share, so the quiet app goes first.
    expect(slots.release('app_other')).toEqual({ app: 'app_quiet', item: 'quiet-0' });
    // The noisy app's own request ends: the next of its own starts, in the order they came.
    expect(slots.release('app_noisy')).toEqual({ app: 'app_noisy', item: 'noisy-waiting-0' });
  });

  it('hands freed slots out in turns across the apps that wait', () => {
    const slots = new FairSlots<string>({ maxInFlight: 2, maxInFlightPerApp: 2, maxWaitingPerApp: 10, maxWaiting: 100 });
    expect(offerAll(slots, 'app_a', 2)).toEqual(['run', 'run']);
    offerAll(slots, 'app_a', 3, 'a-waiting');
    offerAll(slots, 'app_b', 2, 'b-waiting');
    offerAll(slots, 'app_c', 1, 'c-waiting');
    const order: string[] = [];
    for (let next = slots.release('app_a'); next; next = slots.release(next.app)) order.push(next.item);
    expect(order).toEqual(['a-waiting-0', 'b-waiting-0', 'c-waiting-0', 'a-waiting-1', 'b-waiting-1', 'a-waiting-2']);
    expect([slots.busy, slots.waiting]).toEqual([1, 0]);
  });

  it('refuses a request over its app’s waiting list, and only that app’s', () => {
    const slots = new FairSlots<string>({ maxInFlight: 4, maxInFlightPerApp: 2, maxWaitingPerApp: 4, maxWaiting: 16 });
    const burst = offerAll(slots, 'app_noisy', 10);
    expect(burst).toEqual(['run', 'run', 'wait', 'wait', 'wait', 'wait', 'refuse', 'refuse', 'refuse', 'refuse']);
    expect([slots.busy, slots.waiting]).toEqual([2, 4]);
    expect(slots.offer('app_quiet', 'quiet-0')).toBe('run');
    // Once one of its requests starts, the app may queue one more.
    expect(slots.release('app_noisy')).toEqual({ app: 'app_noisy', item: 'app_noisy-2' });
    expect(slots.offer('app_noisy', 'again')).toBe('wait');
    expect(slots.offer('app_noisy', 'again-2')).toBe('refuse');
  });

  it('holds internal calls to no app’s share and never refuses them; only the total waiting says full', () => {
    const slots = new FairSlots<string>({ maxInFlight: 4, maxInFlightPerApp: 2, maxWaitingPerApp: 1, maxWaiting: 6 });
    expect(offerAll(slots, null, 4)).toEqual(['run', 'run', 'run', 'run']);
    expect(offerAll(slots, null, 5)).toEqual(['wait', 'wait', 'wait', 'wait', 'wait']);
    expect(slots.full).toBe(false);
    expect(slots.offer('app_a', 'a-0')).toBe('wait');
    expect(slots.full).toBe(true);
    expect(slots.release(null)).toEqual({ app: null, item: 'internal-0' });
    expect(slots.full).toBe(false);
  });
});
