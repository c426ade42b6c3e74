import { randomBytes } from 'node:crypto';
import { AssignerProtocol } from 'kafkajs';
import { rpcReplyTopic, rpcTopic, type RpcRequest } from '#platform/contracts';
import { ensureTopics, kafkaClientConfig, RpcClient, RpcKafkaServer } from '#platform/kafka';
import { BROKERS, deleteTopics, testKafka } from './integration.test-helpers';

describe('RPC replies on each replica’s own partition (real Kafka)', () => {
  const namespace = process.env.KAFKA_NAMESPACE;
  afterEach(() => {
    if (namespace === undefined) delete process.env.KAFKA_NAMESPACE;
    else process.env.KAFKA_NAMESPACE = namespace;
  });

  it('answers each replica on its partition, which is the only one its reply consumer reads', async () => {
    process.env.KAFKA_NAMESPACE = `rpc-parts-${randomBytes(4).toString('hex')}.`;
    const kafka = testKafka();
    const topics = [rpcTopic('profile'), rpcReplyTopic('profile')];
    await ensureTopics(
      kafka,
      topics.map((name) => ({ name, partitions: 6, config: {} })),
    );
    const server = new RpcKafkaServer(
      {
        client: kafkaClientConfig(`test-rpc-server-${randomBytes(3).toString('hex')}`, BROKERS),
        consumer: { groupId: `${rpcTopic('profile')}-servers`, maxWaitTimeInMs: 100, allowAutoTopicCreation: false },
        producer: { allowAutoTopicCreation: false },
        subscribe: { fromBeginning: true },
        postfixId: '',
      },
      { maxInFlight: 10 },
    );
    server.addHandler(rpcTopic('profile'), async (request: RpcRequest) => ({ ok: true, result: { answered: request.payload } }), false);
    const instanceIds = [2, 4].map((replyPartition) => `test-${replyPartition}-${randomBytes(4).toString('hex')}`);
    const replicas = [2, 4].map(
      (replyPartition, r) => new RpcClient({ brokers: BROKERS, instanceId: instanceIds[r], services: ['profile'], timeoutMs: 10_000, replyPartition }),
    );
    const admin = kafka.admin();
    await admin.connect();
    try {
      await new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve())));
      await Promise.all(replicas.map((rpc) => rpc.connect()));

      const answers = await Promise.all(
        replicas.flatMap((rpc, r) =>
          Array.from({ length: 10 }, (_, i) => rpc.call('profile', 'profile.get', { requestId: `req-${r}-${i}` }, { appId: `app-${r}-${i}` })),
        ),
      );
      expect(answers).toEqual(replicas.flatMap((_, r) => Array.from({ length: 10 }, (__, i) => ({ answered: { appId: `app-${r}-${i}` } }))));

      const replies = await admin.fetchTopicOffsets(rpcReplyTopic('profile'));
      expect(Object.fromEntries(replies.map((p) => [p.partition, Number(p.high)]))).toEqual({ 0: 0, 1: 0, 2: 10, 3: 0, 4: 10, 5: 0 });

      const groupIds = instanceIds.map((id) => `${process.env.KAFKA_NAMESPACE}gateway-replies-${id}`);
      const { groups } = await admin.describeGroups(groupIds);
      const readByGroup = groupIds.map((groupId) =>
        groups
          .find((group) => group.groupId === groupId)
          ?.members.map((member) => AssignerProtocol.MemberAssignment.decode(member.memberAssignment)?.assignment[rpcReplyTopic('profile')]),
      );
      expect(readByGroup).toEqual([[[2]], [[4]]]);
    } finally {
      await admin.disconnect();
      await Promise.all(replicas.map((rpc) => rpc.close()));
      await server.close();
      await deleteTopics(kafka, topics);
    }
  }, 90_000);
});
