import { ServerKafka } from '@nestjs/microservices';
import { RpcKafkaServer } from './rpc-server';
import { of } from 'rxjs';

/** The parts of Nest's server the route lookup goes through (protected in its types). */
interface RouteLookup {
  getRouteFromPattern(pattern: string): string;
  getHandlerByPattern(pattern: string): unknown;
  addHandler(pattern: unknown, handler: (...args: unknown[]) => unknown, isEventHandler?: boolean): void;
}

function server(): RpcKafkaServer & RouteLookup {
  // Nothing connects: the constructor only reads its options.
  return new RpcKafkaServer({ client: { brokers: ['127.0.0.1:1'] } }, { maxInFlight: 1 }) as unknown as RpcKafkaServer & RouteLookup;
}

describe('RpcKafkaServer handler routes', () => {
  const nests = (pattern: string) => (ServerKafka.prototype as unknown as RouteLookup).getRouteFromPattern.call(server(), pattern);

  it('gives the route Nest gives, for topic names and JSON patterns, the first time and every time after', () => {
    const ours = server();
    for (const pattern of ['bench_1.messaging.rpc', 'messaging.rpc', '{"cmd":"send","v":1}', '{"v":1,"cmd":"send"}', '"quoted"', '42']) {
      expect(ours.getRouteFromPattern(pattern)).toBe(nests(pattern));
      expect(ours.getRouteFromPattern(pattern)).toBe(nests(pattern));
    }
  });

  it('finds the handler registered for a request topic on every request', () => {
    const ours = server();
    const handler = async () => 'answer';
    ours.addHandler('test.messaging.rpc', handler);
    for (let i = 0; i < 3; i++) expect(ours.getHandlerByPattern('test.messaging.rpc')).toBe(handler);
    expect(ours.getHandlerByPattern('test.consent.rpc')).toBeNull();
  });
});

describe('RpcKafkaServer replies', () => {
  it('reports a reply the broker refused instead of leaving it an unhandled rejection (which ends the process)', async () => {
    const errors: unknown[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const ours = new RpcKafkaServer({ client: { brokers: ['127.0.0.1:1'] } }, { maxInFlight: 1, onError: (error) => errors.push(error) });
      const refused = new Error('retries exhausted: the broker is down');
      // The producer's send during a broker outage, once kafkajs gave up retrying.
      (ours as unknown as { producer: { send: () => Promise<never> } }).producer = { send: () => Promise.reject(refused) };
      // As Nest's handleMessage answers: its `send` awaits the publisher in a nextTick callback nobody awaits.
      ours.send(of({ ok: true }), ours.getPublisher('test.messaging.rpc.reply', '0', 'corr-1', {} as never));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
      expect(errors).toEqual([refused]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
