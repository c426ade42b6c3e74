import { kafkaClientConfig } from './kafka-client';
import { restartDelayMs } from './consumer-restarts';

// After a broker outage, how soon each client tries again decides how soon the platform serves (issue 32).
describe('back-off after Kafka failures', () => {
  it('rebuilds a crashed consumer after 1 s, then every 2 s however often it crashed', () => {
    expect([1, 2, 3, 10, 50].map(restartDelayMs)).toEqual([1_000, 2_000, 2_000, 2_000, 2_000]);
  });

  it('waits at most a second between two tries of a request or connection (kafkajs would grow to 30 s)', () => {
    const { retry } = kafkaClientConfig('backoff-test', ['127.0.0.1:9092']);
    expect(retry).toMatchObject({ initialRetryTime: 200, retries: 8, maxRetryTime: 1_000 });
  });
});
