import { randomBytes } from 'node:crypto';
import { ClientKafka, ServerKafka } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { rpcReplyTopic, rpcTopic, type RpcReply, type RpcRequest, type RpcService } from '#platform/contracts';
import { ensureTopics, kafkaClientConfig, RpcClient, RpcKafkaServer } from '#platform/kafka';
import { BROKERS, deleteTopics, testKafka } from './integration.test-helpers';

const NEST_OPTIONS = { producer: { allowAutoTopicCreation: false }, subscribe: { fromBeginning: true }, postfixId: '' } as const;

/** A server for `service` that answers with the request's payload and caller, refuses `op: refuse` and throws on `op: throw`. */
async function answering<S extends ServerKafka>(make: (options: ConstructorParameters<typeof ServerKafka>[0]) => S, service: RpcService): Promise<S> {
  const server = make({
    client: kafkaClientConfig(`test-rpc-server-${randomBytes(3).toString('hex')}`, BROKERS),
    consumer: { groupId: `${rpcTopic(service)}-servers`, maxWaitTimeInMs: 100, allowAutoTopicCreation: false },
    ...NEST_OPTIONS,
  });
  server.addHandler(
    rpcTopic(service),
    async (request: RpcRequest): Promise<RpcReply> => {
      if (request.op === 'throw') throw new Error('the handler failed');
      if (request.op === 'refuse') return { ok: false, error: { code: 'not_found', message: 'No such thing.' } };
      return { ok: true, result: { service, payload: request.payload, requestId: request.caller.requestId } };
    },
    false,
  );
  await new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve())));
  return server;
}

const client = (services: RpcService[], timeoutMs: number, replyPartition?: number) =>
  new RpcClient({ brokers: BROKERS, instanceId: `test-wire-${randomBytes(4).toString('hex')}`, services, timeoutMs, replyPartition });

/** What a call ends with: its result, or the code and message of its DomainError. */
const outcome = (call: Promise<unknown>) =>
  call.then(
    (result) => ({ result }),
    (error: { code?: string; message?: string }) => ({ code: error.code, message: error.message }),
  );

/**
 * The RPC client and server write and read Nest's Kafka request/reply wire without its per-record
 * machinery (rpc-wire.ts), so during a rolling deploy either still works with the other side's
 * older, plain Nest version.
 */
describe('RPC on Nest’s Kafka wire (real Kafka)', () => {
  const namespace = process.env.KAFKA_NAMESPACE;
  let topics: string[] = [];
  beforeEach(async () => {
    process.env.KAFKA_NAMESPACE = `rpc-wire-${randomBytes(4).toString('hex')}.`;
    topics = (['profile', 'consent'] as const).flatMap((service) => [rpcTopic(service), rpcReplyTopic(service)]);
    await ensureTopics(
      testKafka(),
      topics.map((name) => ({ name, partitions: 6, config: {} })),
    );
  });
  afterEach(async () => {
    await deleteTopics(testKafka(), topics);
    if (namespace === undefined) delete process.env.KAFKA_NAMESPACE;
    else process.env.KAFKA_NAMESPACE = namespace;
  });

  it('an older gateway (Nest’s ClientKafka) is answered by the server, and the client by an older service (Nest’s ServerKafka)', async () => {
    const ours = await answering((options) => new RpcKafkaServer(options, { maxInFlight: 8 }), 'profile');
    const nests = await answering((options) => new ServerKafka(options), 'consent');
    const oldGateway = new ClientKafka({
      client: kafkaClientConfig(`test-old-gateway-${randomBytes(3).toString('hex')}`, BROKERS),
      consumer: { groupId: `test-old-gateway-${randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 100, allowAutoTopicCreation: false },
      ...NEST_OPTIONS,
    });
    oldGateway.subscribeToResponseOf(rpcTopic('profile'));
    const rpc = client(['profile', 'consent'], 10_000);
    try {
      await oldGateway.connect();
      await rpc.connect();
      const request: RpcRequest = {
        op: 'profile.get',
        caller: { requestId: 'req-old', appId: 'app_1' },
        payload: { appId: 'app_1' },
        deadline: Date.now() + 10_000,
      };
      const asked = (op: string) =>
        firstValueFrom(oldGateway.send<RpcReply>(rpcTopic('profile'), { value: { ...request, op }, headers: { 'svc-app-id': 'app_1' } }));
      expect(await asked('profile.get')).toEqual({ ok: true, result: { service: 'profile', payload: { appId: 'app_1' }, requestId: 'req-old' } });
      expect(await asked('refuse')).toEqual({ ok: false, error: { code: 'not_found', message: 'No such thing.' } });
      // As Nest's server did: a throwing handler fails the call (Nest's error header), it does not leave it waiting.
      await expect(asked('throw')).rejects.toBeDefined();

      expect(await rpc.call('consent', 'users.get', { requestId: 'req-new' }, { appId: 'app_1', appUserId: 'u_1' })).toEqual({
        service: 'consent',
        payload: { appId: 'app_1', appUserId: 'u_1' },
        requestId: 'req-new',
      });
      expect(await outcome(rpc.call('consent', 'refuse' as 'users.get', { requestId: 'req-refused' }, { appId: 'app_1', appUserId: 'u_1' }))).toEqual({
        code: 'not_found',
        message: 'No such thing.',
      });
      expect(await outcome(rpc.call('consent', 'throw' as 'users.get', { requestId: 'req-thrown' }, { appId: 'app_1', appUserId: 'u_1' }))).toEqual({
        code: 'internal_error',
        message: 'Call to consent (throw) failed; retry with the same Idempotency-Key.',
      });
    } finally {
      await rpc.close();
      await oldGateway.close();
      await ours.close();
      await nests.close();
    }
  }, 90_000);

  it('hands each reply to its own caller on a shared reply partition; a refusal is the caller’s error, a throw a 500, no answer a timeout', async () => {
    const server = await answering((options) => new RpcKafkaServer(options, { maxInFlight: 8 }), 'profile');
    // Two replicas on one reply partition: each reads the other's replies too and must keep only its own.
    const replicas = [client(['profile', 'consent'], 10_000, 2), client(['profile', 'consent'], 10_000, 2)];
    try {
      await Promise.all(replicas.map((rpc) => rpc.connect()));
      const answers = await Promise.all(
        replicas.flatMap((rpc, r) =>
          Array.from({ length: 20 }, (_, i) => rpc.call('profile', 'profile.get', { requestId: `req-${r}-${i}` }, { appId: `app-${r}-${i}` })),
        ),
      );
      expect(answers).toEqual(
        replicas.flatMap((_, r) =>
          Array.from({ length: 20 }, (__, i) => ({ service: 'profile', payload: { appId: `app-${r}-${i}` }, requestId: `req-${r}-${i}` })),
        ),
      );

      const [rpc] = replicas;
      expect(await outcome(rpc.call('profile', 'refuse' as 'profile.get', { requestId: 'req-refused' }, { appId: 'app_1' }))).toEqual({
        code: 'not_found',
        message: 'No such thing.',
      });
      expect(await outcome(rpc.call('profile', 'throw' as 'profile.get', { requestId: 'req-thrown' }, { appId: 'app_1' }))).toEqual({
        code: 'internal_error',
        message: 'Call to profile (throw) failed; retry with the same Idempotency-Key.',
      });
      // No consent server runs: the call ends as 500 once its time is up, not later and never as a hang.
      const started = Date.now();
      expect(await outcome(rpc.call('consent', 'users.get', { requestId: 'req-unanswered' }, { appId: 'app_1', appUserId: 'u_1' }, 1500))).toEqual({
        code: 'internal_error',
        message: 'No answer from consent (users.get) in time; retry with the same Idempotency-Key.',
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await Promise.all(replicas.map((rpc) => rpc.close()));
      await server.close();
    }
  }, 90_000);
});
