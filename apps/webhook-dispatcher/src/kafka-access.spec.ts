import { kafkaUsesCheck } from '#platform/contracts';
import { definitionKafkaUses, SecretKeyRing } from '#platform/service-kit';
import { webhookDispatcherService } from './main';

describe('webhook-dispatcher on Kafka', () => {
  it('starts exactly the consumers, publishing and RPC its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    const definition = webhookDispatcherService(SecretKeyRing.fromEnv({}, false));
    expect(kafkaUsesCheck('webhook-dispatcher', definitionKafkaUses(definition))).toEqual({ refused: [], unused: [] });
  });
});
