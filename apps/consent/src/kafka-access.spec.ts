import { kafkaUsesCheck } from '#platform/contracts';
import { definitionKafkaUses } from '#platform/service-kit';
import { consentService } from './main';

describe('consent on Kafka', () => {
  it('starts exactly the consumers, publishing and RPC its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    expect(kafkaUsesCheck('consent', definitionKafkaUses(consentService))).toEqual({ refused: [], unused: [] });
  });
});
