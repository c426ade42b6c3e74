import { createServer, type AddressInfo } from 'node:net';
import { parseBrokers } from './kafka-client';
import { KafkaHealth } from './kafka-health';

/** A port where nothing listens: bound, then closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('KafkaHealth', () => {
  it('reports the broker reachable', async () => {
    const health = new KafkaHealth('health-test', parseBrokers(process.env.KAFKA_BROKERS));
    try {
      expect(await health.reachable()).toBe(true);
      expect(await health.reachable()).toBe(true);
    } finally {
      await health.close();
    }
  });

  it('reports a broker where nothing listens unreachable, within its deadline', async () => {
    const health = new KafkaHealth('health-test', [`127.0.0.1:${await deadPort()}`], { timeoutMs: 1000 });
    try {
      const started = Date.now();
      expect(await health.reachable()).toBe(false);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await health.close();
    }
  });
});
