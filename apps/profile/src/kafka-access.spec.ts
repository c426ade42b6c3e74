import { kafkaUsesCheck } from '#platform/contracts';
import { definitionKafkaUses } from '#platform/service-kit';
import { profileService } from './main';

describe('profile on Kafka', () => {
  it('starts exactly the consumers, publishing and RPC its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    expect(kafkaUsesCheck('profile', definitionKafkaUses(profileService))).toEqual({ refused: [], unused: [] });
  });
});
