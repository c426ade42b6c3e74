import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * platformctl's Kafka client settings (plain ES modules, so each case runs in a Node child, as in
 * listen-lib.spec.ts): the same KAFKA_SSL_* / KAFKA_SASL_* mapping as the apps (from the build).
 */
function kafkaOptions(env: Record<string, string>): { ok: true; options: any } | { ok: false; error: string } {
  const module = pathToFileURL(path.join(__dirname, 'clients.mjs')).href;
  const script = `import { kafkaClientOptions } from ${JSON.stringify(module)};
try { process.stdout.write(JSON.stringify({ ok: true, options: kafkaClientOptions({ kafkaBrokers: ['b:9093'] }) })); }
catch (error) { process.stdout.write(JSON.stringify({ ok: false, error: error.message })); }`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^KAFKA_S(SL|ASL)/.test(name) && name !== 'NODE_ENV'));
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...clean, ...env } }).toString());
}

describe('platformctl Kafka client options', () => {
  it('are plaintext without KAFKA_SSL / KAFKA_SASL', () => {
    const result = kafkaOptions({});
    expect(result).toMatchObject({ ok: true, options: { clientId: 'platformctl', brokers: ['b:9093'] } });
    expect((result as { options: object }).options).not.toHaveProperty('sasl');
    expect((result as { options: object }).options).not.toHaveProperty('ssl');
  });

  it('carry TLS and SCRAM as the apps do', () => {
    expect(
      kafkaOptions({ KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'platformctl', KAFKA_SASL_PASSWORD: 'pw' }),
    ).toMatchObject({
      ok: true,
      options: { ssl: { rejectUnauthorized: true }, sasl: { mechanism: 'scram-sha-512', username: 'platformctl', password: 'pw' } },
    });
  });

  it('refuse what the apps refuse', () => {
    expect(kafkaOptions({ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u' })).toEqual({
      ok: false,
      error: expect.stringContaining('KAFKA_SASL_PASSWORD is required'),
    });
    expect(kafkaOptions({ NODE_ENV: 'production', KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' })).toEqual({
      ok: false,
      error: expect.stringContaining('production'),
    });
  });
});
