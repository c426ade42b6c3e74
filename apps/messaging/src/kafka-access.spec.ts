import { kafkaUsesCheck } from '#platform/contracts';
import { definitionKafkaUses } from '#platform/service-kit';
import { messagingService } from './main';

describe('messaging on Kafka', () => {
  it('starts exactly the consumers, publishing and RPC its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    expect(kafkaUsesCheck('messaging', definitionKafkaUses(messagingService))).toEqual({ refused: [], unused: [] });
  });
});
