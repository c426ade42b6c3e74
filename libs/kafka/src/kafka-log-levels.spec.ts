import { KafkaJSConnectionError, KafkaJSProtocolError } from 'kafkajs';
import { isTransientKafkaError, kafkaLogLevel } from './kafka-log-levels';

describe('kafkajs log lines as an operator reads them', () => {
  it('a consumer joining its group, and a coordinator moving or loading, are info', () => {
    // Lines of a normal start and of a deploy's rebalance, as kafkajs logs them (at ERROR).
    for (const line of [
      { level: 'error' as const, message: 'Response JoinGroup(key: 11, version: 5)', error: 'The coordinator is not aware of this member' },
      { level: 'error' as const, message: 'Response Heartbeat(key: 12, version: 3)', error: 'The group is rebalancing, so a rejoin is needed' },
      { level: 'error' as const, message: "Crash: KafkaJSProtocolError: The coordinator is loading and hence can't process requests for this group" },
      { level: 'error' as const, message: 'Response OffsetFetch(key: 9, version: 4)', error: 'This is not the correct coordinator for this group' },
      { level: 'error' as const, message: 'Response SyncGroup(key: 14, version: 3)', error: 'Specified group generation id is not valid' },
      { level: 'error' as const, message: 'Crash: KafkaJSGroupCoordinatorNotFound: Failed to find group coordinator' },
      {
        level: 'error' as const,
        message: 'Response JoinGroup(key: 11, version: 5)',
        error: 'The group member needs to have a valid member id before actually entering a consumer group',
      },
    ]) {
      expect(kafkaLogLevel(line)).toBe('info');
    }
  });

  it('a broker restarting, and errors a retry recovers from, are warnings', () => {
    for (const line of [
      { level: 'error' as const, message: 'Connection error: connect ECONNREFUSED 127.0.0.1:9092' },
      { level: 'error' as const, message: 'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED' },
      { level: 'error' as const, message: 'Restarting the consumer in 200ms' },
      { level: 'error' as const, message: 'Crash: KafkaJSNoBrokerAvailableError: No broker available' },
      { level: 'error' as const, message: 'Response Fetch(key: 1, version: 11)', error: 'This server does not host this topic-partition' },
      { level: 'error' as const, message: 'Response Produce(key: 0, version: 7)', error: 'The server disconnected before a response was received' },
    ]) {
      expect(kafkaLogLevel(line)).toBe('warn');
    }
  });

  it('replicas creating the same topics at start log the broker’s answer as info: the caller judges it', () =>
    expect(kafkaLogLevel({ level: 'error', message: 'Response CreateTopics(key: 19, version: 3)', error: 'Topic creation errors' })).toBe('info'));

  it('leadership moves and routine warnings are not worth a line', () => {
    expect(
      kafkaLogLevel({
        level: 'error',
        message: 'Response Metadata',
        error: 'There is no leader for this topic-partition as we are in the middle of a leadership election',
      }),
    ).toBeNull();
    expect(kafkaLogLevel({ level: 'warn', message: 'The group is rebalancing, re-joining' })).toBeNull();
  });

  it('anything else keeps kafkajs’ own level: an error is something to look at', () => {
    expect(
      kafkaLogLevel({
        level: 'error',
        message: 'Response Produce(key: 0, version: 7)',
        error: 'Not authorized to access topics: [Topic authorization failed]',
      }),
    ).toBe('error');
    expect(kafkaLogLevel({ level: 'error', message: 'Crash: TypeError: Cannot read properties of undefined' })).toBe('error');
    expect(kafkaLogLevel({ level: 'warn', message: 'Consumer group is rebalancing slowly' })).toBe('warn');
  });

  it('tells a consumer crash the platform recovers from by a restart from one it does not', () => {
    // As kafkajs raises it while a fresh broker loads (its typings give the class no constructor argument).
    expect(isTransientKafkaError(Object.assign(new Error('Failed to find group coordinator'), { name: 'KafkaJSGroupCoordinatorNotFound' }))).toBe(true);
    expect(isTransientKafkaError(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092'))).toBe(true);
    expect(isTransientKafkaError(new KafkaJSProtocolError('The coordinator is loading and hence can’t process requests'))).toBe(true);
    expect(isTransientKafkaError(new TypeError('Cannot read properties of undefined'))).toBe(false);
    expect(isTransientKafkaError(new Error('duplicate key value violates unique constraint'))).toBe(false);
  });
});
