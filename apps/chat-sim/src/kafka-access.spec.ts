import { kafkaUsesCheck } from '#platform/contracts';
import { definitionKafkaUses } from '#platform/service-kit';
import { chatSimService } from './main';

describe('chat-sim on Kafka', () => {
  it('starts exactly the consumers, publishing and RPC its Kafka user is granted (libs/contracts kafka-access.ts)', () => {
    expect(kafkaUsesCheck('chat-sim', definitionKafkaUses(chatSimService))).toEqual({ refused: [], unused: [] });
  });
});
