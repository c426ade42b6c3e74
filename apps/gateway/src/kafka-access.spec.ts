import { kafkaUsesCheck, type KafkaUse } from '#platform/contracts';
import { outboxTopics } from '#platform/service-kit';
import { loadGatewayConfig } from './gateway.config';
import { cacheTopics, GATEWAY_CONSUMERS, gatewayRpcClient } from './gateway-kafka';
import { gatewayOutboxRoute } from './main';

describe('gateway on Kafka', () => {
  it('starts exactly the consumers, caches, publishing and RPC its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    // As startGateway starts them (its RPC server answers `gateway`, for the console's key operations).
    const uses: KafkaUse[] = [
      ...GATEWAY_CONSUMERS.map((consumer): KafkaUse => ({ kind: 'consumer', name: consumer.name, topics: consumer.topics })),
      { kind: 'broadcast', name: 'caches', topics: cacheTopics() },
      ...outboxTopics(gatewayOutboxRoute).map((topic): KafkaUse => ({ kind: 'produce', topic })),
      { kind: 'serve', service: 'gateway' },
      ...gatewayRpcClient(loadGatewayConfig({}), 0).kafkaUses(),
    ];
    expect(kafkaUsesCheck('gateway', uses)).toEqual({ refused: [], unused: [] });
  });
});
