import { stopKafkaJsIdleTimerLoop } from './request-queue-timer.patch';

// kafkajs' own RequestQueue, patched; no socket: a "request" here is a callback that records it was sent.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (options: Record<string, unknown>) => {
  pending: unknown[];
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: { entry: ReturnType<typeof entry>; expectResponse: boolean; sendRequest: () => void }): void;
  maybeThrottle(ms: number): void;
  checkPendingRequests(): void;
  destroy(): void;
};

const quietLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A request entry as kafkajs' Connection makes it (resolve/reject settle the caller's promise). */
function entry(correlationId: number) {
  return { correlationId, apiKey: 0, apiName: 'Test', apiVersion: 0, resolve: () => undefined, reject: () => undefined };
}

function newQueue() {
  return new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'b:9092',
    logger: quietLogger,
  });
}

describe('kafkajs RequestQueue without its idle timer loop', () => {
  beforeAll(() => stopKafkaJsIdleTimerLoop());
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('schedules nothing when no request waits and nothing is throttled', () => {
    const queue = newQueue();
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends a request at once when not throttled, leaving no timer behind', () => {
    const queue = newQueue();
    const sent: number[] = [];
    queue.push({ entry: entry(1), expectResponse: false, sendRequest: () => sent.push(1) });
    expect(sent).toEqual([1]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('holds a request while throttled and sends it when the throttle ends, then stops checking', () => {
    const queue = newQueue();
    const sent: number[] = [];
    queue.maybeThrottle(50);
    queue.push({ entry: entry(7), expectResponse: false, sendRequest: () => sent.push(7) });
    expect(sent).toEqual([]);
    expect(queue.pending).toHaveLength(1);

    jest.advanceTimersByTime(49);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sent).toEqual([7]);
    expect(queue.pending).toHaveLength(0);
    expect(jest.getTimerCount()).toBe(0);
  });
});
