import { randomBytes } from 'node:crypto';
import { loadS3Config } from './s3';

/** What production must refuse (docs/operations.md, "Secrets"): unset unless optional, the dev value, 31 bytes unless a name. */
function refusedInProduction(devValue: string, { optional = false, identifier = false } = {}): [string, string | undefined][] {
  return [
    ...(optional ? [] : ([['missing', undefined]] as [string, undefined][])),
    ['its published dev value', devValue],
    ...(identifier ? [] : ([['31 bytes', 'k'.repeat(31)]] as [string, string][])),
  ];
}
const strongSecret = () => randomBytes(48).toString('base64');

const production = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  NODE_ENV: 'production',
  S3_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  S3_SECRET_ACCESS_KEY: strongSecret(),
  ...env,
});

describe('S3 credentials (media, profile: the media bucket)', () => {
  it.each(refusedInProduction('local-secret-key'))('S3_SECRET_ACCESS_KEY is refused in production: %s', (_, value) => {
    expect(() => loadS3Config(production({ S3_SECRET_ACCESS_KEY: value }))).toThrow('S3_SECRET_ACCESS_KEY');
  });

  // An access key id names the key (20 characters on AWS): it is refused missing or as the dev one, whatever its length.
  it.each(refusedInProduction('local-access-key', { identifier: true }))('S3_ACCESS_KEY_ID is refused in production: %s', (_, value) => {
    expect(() => loadS3Config(production({ S3_ACCESS_KEY_ID: value }))).toThrow('S3_ACCESS_KEY_ID');
  });

  it('are taken in production when real, and fall back to the local S3Proxy’s in dev and test', () => {
    const env = production({});
    expect(loadS3Config(env)).toMatchObject({ accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: env.S3_SECRET_ACCESS_KEY });
    expect(loadS3Config({})).toMatchObject({ accessKeyId: 'local-access-key', secretAccessKey: 'local-secret-key' });
  });
});
