import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** S3 settings (DESIGN section 9: S3_*; `.env.example` documents them). */
export interface S3Config {
  /** Endpoint the services use; empty for AWS itself. */
  endpoint: string | undefined;
  /** Endpoint written into presigned URLs, reachable by API clients. */
  publicEndpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

export function loadS3Config(env: NodeJS.ProcessEnv): S3Config {
  const endpoint = env.S3_ENDPOINT === undefined ? 'http://127.0.0.1:9000' : env.S3_ENDPOINT || undefined;
  return {
    endpoint,
    publicEndpoint: env.S3_PUBLIC_ENDPOINT || endpoint,
    region: env.S3_REGION ?? 'us-east-1',
    bucket: env.S3_BUCKET ?? 'platform-media',
    accessKeyId: env.S3_ACCESS_KEY_ID ?? 'local-access-key',
    secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? 'local-secret-key',
    forcePathStyle: (env.S3_FORCE_PATH_STYLE ?? 'true') !== 'false',
  };
}

/**
 * A client for one endpoint. Checksums only when an operation requires them: SDK ≥ 3.729 otherwise
 * adds CRC32 checksums that S3-compatible stores (and presigned uploads) do not all accept.
 */
export function createS3Client(config: S3Config, endpoint = config.endpoint): S3Client {
  return new S3Client({
    endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Stores bytes under `key` in the configured bucket. */
export async function putObject(client: S3Client, config: S3Config, key: string, body: Buffer, contentType: string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: config.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }));
}
