import { kafkaUsesCheck, type KafkaUse } from '#platform/contracts';
import { loadBaseConfig, outboxTopics, ServiceRuntime } from '#platform/service-kit';
import { loadConsoleSettings } from './console.config';
import { consoleConsumers, consoleOutboxRoute, consoleRpcClient } from './console-kafka';

describe('console on Kafka', () => {
  it('starts exactly the consumers, publishing and RPC calls its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    const base = loadBaseConfig('console', 'console', 3002, {});
    const settings = loadConsoleSettings({}, false);
    const runtime = new ServiceRuntime({ config: base, entities: [], migrations: [], outboxRoute: consoleOutboxRoute });
    const uses: KafkaUse[] = [
      ...consoleConsumers(runtime, settings).map((consumer): KafkaUse => ({ kind: 'consumer', name: consumer.name, topics: consumer.topics })),
      ...outboxTopics(consoleOutboxRoute).map((topic): KafkaUse => ({ kind: 'produce', topic })),
      ...consoleRpcClient(base, settings).kafkaUses(),
    ];
    expect(kafkaUsesCheck('console', uses)).toEqual({ refused: [], unused: [] });
  });
});
