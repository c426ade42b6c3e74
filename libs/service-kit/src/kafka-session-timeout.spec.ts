import { ConfigError, loadBaseConfig } from './config';

// How long a killed replica holds its partitions (issue 32): short by default, bounded both ways.
describe('KAFKA_SESSION_TIMEOUT_MS', () => {
  it('defaults to 3 s, so a replacement replica is ready within 5 s', () => {
    expect(loadBaseConfig('profile', 'profile', 3040, {}).kafkaSessionTimeoutMs).toBe(3_000);
  });

  it('takes any value from 1 s to 5 min', () => {
    expect(loadBaseConfig('profile', 'profile', 3040, { KAFKA_SESSION_TIMEOUT_MS: '1000' }).kafkaSessionTimeoutMs).toBe(1_000);
    expect(loadBaseConfig('profile', 'profile', 3040, { KAFKA_SESSION_TIMEOUT_MS: '45000' }).kafkaSessionTimeoutMs).toBe(45_000);
    expect(loadBaseConfig('profile', 'profile', 3040, { KAFKA_SESSION_TIMEOUT_MS: '300000' }).kafkaSessionTimeoutMs).toBe(300_000);
  });

  it('refuses sessions a slow heartbeat would end, or a dead replica would hold for long', () => {
    for (const value of ['999', '300001', '0', '-3000', 'soon', '2.5s']) {
      expect(() => loadBaseConfig('profile', 'profile', 3040, { KAFKA_SESSION_TIMEOUT_MS: value })).toThrow(ConfigError);
    }
  });
});
