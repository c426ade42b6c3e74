import { kafkaUsesCheck } from '#platform/contracts';
import { definitionKafkaUses } from '#platform/service-kit';
import { mediaService } from './main';

describe('media on Kafka', () => {
  it('starts exactly the consumers, publishing and RPC its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    expect(kafkaUsesCheck('media', definitionKafkaUses(mediaService))).toEqual({ refused: [], unused: [] });
  });
});
