import { randomBytes } from 'node:crypto';
import { rpcReplyTopic, rpcTopic, type RpcRequest } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { ensureTopics, kafkaClientConfig, RpcClient, RpcKafkaServer } from '#platform/kafka';
import { BROKERS, deleteTopics, testKafka, waitFor } from './integration.test-helpers';

/**
 * A service's in-flight slots are shared fairly between apps (ADR 0206): one app's burst cannot take
 * them all, a quiet app or an internal call is served while it waits, and what is over its bounded
 * waiting list is refused at once as 429 rate_limited with a Retry-After.
 */
describe('RPC slots shared between apps (real Kafka)', () => {
  const namespace = process.env.KAFKA_NAMESPACE;
  afterEach(() => {
    if (namespace === undefined) delete process.env.KAFKA_NAMESPACE;
    else process.env.KAFKA_NAMESPACE = namespace;
  });

  it('serves a quiet app and an internal call while a noisy app holds its share, and refuses what it cannot queue', async () => {
    process.env.KAFKA_NAMESPACE = `rpc-fair-${randomBytes(4).toString('hex')}.`;
    const kafka = testKafka();
    const topics = [rpcTopic('profile'), rpcReplyTopic('profile')];
    await ensureTopics(
      kafka,
      topics.map((name) => ({ name, partitions: 6, config: {} })),
    );
    // Four slots: one app holds at most two (by default), and at most four of its requests wait.
    const server = new RpcKafkaServer(
      {
        client: kafkaClientConfig(`test-rpc-server-${randomBytes(3).toString('hex')}`, BROKERS),
        consumer: { groupId: `${rpcTopic('profile')}-servers`, maxWaitTimeInMs: 100, allowAutoTopicCreation: false },
        producer: { allowAutoTopicCreation: false },
        subscribe: { fromBeginning: true },
        run: { partitionsConsumedConcurrently: 6 },
        postfixId: '',
      },
      { maxInFlight: 4, slots: { maxWaitingPerApp: 4 } },
    );
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const started: string[] = [];
    server.addHandler(
      rpcTopic('profile'),
      async (request: RpcRequest) => {
        started.push(request.caller.appId ?? 'internal');
        if (request.caller.appId === 'app_noisy') await gate;
        return { ok: true, result: { answered: request.caller.requestId } };
      },
      false,
    );
    const rpc = new RpcClient({ brokers: BROKERS, instanceId: `test-fair-${randomBytes(4).toString('hex')}`, services: ['profile'], timeoutMs: 20_000 });
    try {
      await new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve())));
      await rpc.connect();

      const refused: string[] = [];
      const noisy = Array.from({ length: 12 }, (_, i) =>
        rpc.call('profile', 'profile.get', { requestId: `noisy-${i}`, appId: 'app_noisy' }, { appId: 'app_noisy' }).then(
          () => 'ok',
          (error: unknown) => {
            refused.push(isDomainError(error) ? `${error.code} ${error.retryAfterSeconds}` : String(error));
            return 'refused';
          },
        ),
      );
      await waitFor('the noisy app to be handled', () => started.includes('app_noisy'));

      // Answered while the noisy app's requests are held, within a time far shorter than theirs.
      const quiet = await rpc.call('profile', 'profile.get', { requestId: 'quiet-1', appId: 'app_quiet' }, { appId: 'app_quiet' }, 5_000);
      const internal = await rpc.call('profile', 'profile.get', { requestId: 'internal-1' }, { appId: 'app_quiet' }, 5_000);
      expect([quiet, internal]).toEqual([{ answered: 'quiet-1' }, { answered: 'internal-1' }]);
      expect(started.filter((app) => app === 'app_noisy')).toHaveLength(2);

      // Two hold a slot and four wait for one; the rest are refused at once, without being handled.
      await waitFor("the requests over the noisy app's waiting list to be refused", () => refused.length >= 6, { detail: () => refused });
      openGate();
      const outcomes = await Promise.all(noisy);
      expect(refused).toEqual(Array(6).fill('rate_limited 1'));
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(6);
      expect(started.filter((app) => app === 'app_noisy')).toHaveLength(6);
    } finally {
      openGate();
      await rpc.close();
      await server.close();
      await deleteTopics(kafka, topics);
    }
  }, 90_000);
});
