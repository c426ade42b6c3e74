import { randomBytes } from 'node:crypto';
import { rpcReplyTopic, rpcTopic } from '#platform/contracts';
import { ensureTopics, RpcClient } from '#platform/kafka';
import { BROKERS, deleteTopics, sleep, testKafka } from './integration.test-helpers';

describe('RpcClient.connect (real Kafka)', () => {
  const namespace = process.env.KAFKA_NAMESPACE;
  afterEach(() => {
    if (namespace === undefined) delete process.env.KAFKA_NAMESPACE;
    else process.env.KAFKA_NAMESPACE = namespace;
  });

  it('waits for the reply topic that another process is still creating, instead of failing the start', async () => {
    // A fresh broker: the services create the topics at their start, beside this client's start.
    process.env.KAFKA_NAMESPACE = `rpc-wait-${randomBytes(4).toString('hex')}.`;
    const topics = [rpcTopic('profile'), rpcReplyTopic('profile')];
    const kafka = testKafka();
    const rpc = new RpcClient({ brokers: BROKERS, instanceId: `test-${randomBytes(4).toString('hex')}`, services: ['profile'], timeoutMs: 5000 });
    try {
      const connected = rpc.connect().then(
        () => 'connected',
        (error: Error) => `failed: ${error.message}`,
      );
      await sleep(1500);
      await ensureTopics(
        kafka,
        topics.map((name) => ({ name, partitions: 1, config: {} })),
      );
      expect(await connected).toBe('connected');
    } finally {
      await rpc.close();
      await deleteTopics(kafka, topics);
    }
  }, 60_000);
});
