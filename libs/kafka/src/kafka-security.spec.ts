import { KafkaSecurityError, kafkaSecurityFromEnv } from './kafka-security';

const FILES: Record<string, string> = {
  '/etc/kafka/ca.crt': 'CA PEM',
  '/etc/kafka/user.crt': 'CERT PEM',
  '/etc/kafka/user.key': 'KEY PEM',
};
const readFile = (file: string): string => {
  if (!(file in FILES)) throw Object.assign(new Error(`ENOENT: no such file, open '${file}'`), { code: 'ENOENT' });
  return FILES[file];
};
const load = (env: NodeJS.ProcessEnv, production = false) => kafkaSecurityFromEnv(env, { production, readFile });

describe('kafkaSecurityFromEnv (KAFKA_SSL_*, KAFKA_SASL_*)', () => {
  it('adds nothing when nothing is set: plaintext, as the local broker', () => {
    expect(load({})).toEqual({});
    expect(load({ KAFKA_SSL: 'false' })).toEqual({});
  });

  it('turns TLS on with certificate checks and the system CAs when only KAFKA_SSL=true', () => {
    expect(load({ KAFKA_SSL: 'true' })).toEqual({ ssl: { rejectUnauthorized: true } });
  });

  it('reads the CA, and a client certificate and key, from their files', () => {
    expect(
      load({
        KAFKA_SSL: 'true',
        KAFKA_SSL_CA_FILE: '/etc/kafka/ca.crt',
        KAFKA_SSL_CERT_FILE: '/etc/kafka/user.crt',
        KAFKA_SSL_KEY_FILE: '/etc/kafka/user.key',
      }),
    ).toEqual({
      ssl: { rejectUnauthorized: true, ca: ['CA PEM'], cert: 'CERT PEM', key: 'KEY PEM' },
    });
  });

  it('maps each SASL mechanism with its username and password', () => {
    for (const mechanism of ['scram-sha-512', 'scram-sha-256', 'plain'] as const) {
      expect(load({ KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: 'messaging', KAFKA_SASL_PASSWORD: 'pw' })).toEqual({
        ssl: { rejectUnauthorized: true },
        sasl: { mechanism, username: 'messaging', password: 'pw' },
      });
    }
    // Case as Strimzi's docs write it.
    expect(load({ KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }).sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'u',
      password: 'p',
    });
  });

  it('allows KAFKA_SSL_REJECT_UNAUTHORIZED=false outside production only', () => {
    expect(load({ KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' })).toEqual({ ssl: { rejectUnauthorized: false } });
    expect(() => load({ KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }, true)).toThrow(/KAFKA_SSL_REJECT_UNAUTHORIZED=false.*production/);
    expect(load({ KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'true' }, true)).toEqual({ ssl: { rejectUnauthorized: true } });
  });

  it.each<[string, NodeJS.ProcessEnv, RegExp]>([
    ['a KAFKA_SSL other than true or false', { KAFKA_SSL: 'yes' }, /KAFKA_SSL must be true or false/],
    [
      'a KAFKA_SSL_REJECT_UNAUTHORIZED other than true or false',
      { KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: '0' },
      /KAFKA_SSL_REJECT_UNAUTHORIZED must be true or false/,
    ],
    ['TLS files without KAFKA_SSL=true', { KAFKA_SSL_CA_FILE: '/etc/kafka/ca.crt' }, /KAFKA_SSL_CA_FILE.*KAFKA_SSL=true/],
    ['KAFKA_SSL_REJECT_UNAUTHORIZED without KAFKA_SSL=true', { KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }, /KAFKA_SSL_REJECT_UNAUTHORIZED.*KAFKA_SSL=true/],
    [
      'a certificate without its key',
      { KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '/etc/kafka/user.crt' },
      /KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together/,
    ],
    [
      'a file that cannot be read',
      { KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: '/etc/kafka/missing.crt' },
      /KAFKA_SSL_CA_FILE: cannot read \/etc\/kafka\/missing.crt/,
    ],
    [
      'an unknown SASL mechanism',
      { KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      /KAFKA_SASL_MECHANISM must be one of scram-sha-512, scram-sha-256, plain/,
    ],
    ['a SASL mechanism without a password', { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u' }, /KAFKA_SASL_PASSWORD is required/],
    ['a SASL mechanism without a username', { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_PASSWORD: 'p' }, /KAFKA_SASL_USERNAME is required/],
    ['credentials without a mechanism', { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }, /KAFKA_SASL_MECHANISM/],
  ])('refuses %s', (_case, env, message) => {
    expect(() => load(env)).toThrow(KafkaSecurityError);
    expect(() => load(env)).toThrow(message);
  });

  it('refuses in production a SASL password sent in the clear (plain without TLS)', () => {
    expect(() => load({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }, true)).toThrow(
      /plain.*KAFKA_SSL=true.*production/,
    );
    expect(load({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }).sasl).toEqual({
      mechanism: 'plain',
      username: 'u',
      password: 'p',
    });
  });

  it('never puts the password in an error message', () => {
    expect(() => load({ KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'hunter2-secret' })).not.toThrow(/hunter2/);
  });
});
