import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { secretFromEnv } from '#platform/service-kit';

/** S3 settings (architecture section 9: S3_*; `.env.example` documents them). */
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

/** The S3_* settings; the credentials fall back to the local S3Proxy's in dev and test, production refuses those (secretFromEnv). */
export function loadS3Config(env: NodeJS.ProcessEnv, production = env.NODE_ENV === 'production'): S3Config {
  const endpoint = env.S3_ENDPOINT === undefined ? 'http://127.0.0.1:9000' : env.S3_ENDPOINT || undefined;
  return {
    endpoint,
    publicEndpoint: env.S3_PUBLIC_ENDPOINT || endpoint,
    region: env.S3_REGION ?? 'us-east-1',
    bucket: env.S3_BUCKET ?? 'platform-media',
    accessKeyId: secretFromEnv(env, 'S3_ACCESS_KEY_ID', production),
    secretAccessKey: secretFromEnv(env, 'S3_SECRET_ACCESS_KEY', production),
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

/**
 * The media bucket as services use it: reads and deletes through the internal endpoint, presigned
 * URLs for the public one (the host is part of the signature). Presigned URLs are signed with the
 * real time, because S3 judges them by its own clock; callers show lifetimes on the platform clock.
 */
export class MediaBucket {
  private readonly internal: S3Client;
  private readonly presigner: S3Client;

  constructor(private readonly config: S3Config) {
    this.internal = createS3Client(config);
    this.presigner = createS3Client(config, config.publicEndpoint);
  }

  /** The bucket the S3_* variables describe. */
  static fromEnv(env: NodeJS.ProcessEnv): MediaBucket {
    return new MediaBucket(loadS3Config(env));
  }

  /** A PUT URL that signs Content-Type and Content-Length: other bytes or another type are refused by S3. */
  presignUpload(key: string, contentType: string, size: number, ttlSeconds: number): Promise<string> {
    return getSignedUrl(this.presigner, new PutObjectCommand({ Bucket: this.config.bucket, Key: key, ContentType: contentType, ContentLength: size }), {
      expiresIn: ttlSeconds,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
  }

  presignDownload(key: string, ttlSeconds: number): Promise<string> {
    return getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: this.config.bucket, Key: key }), { expiresIn: ttlSeconds });
  }

  /** The stored size, or null when nothing was uploaded. */
  async size(key: string): Promise<number | null> {
    try {
      const head = await this.internal.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** The first `bytes` bytes only (a ranged GET), so a 100 MiB file is never read whole. */
  async readStart(key: string, bytes: number): Promise<Buffer> {
    const object = await this.internal.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: key, Range: `bytes=0-${bytes - 1}` }));
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  /**
   * A server-side copy of `source` to `target` (the bytes never pass through this process), or false
   * when nothing is stored at `source`. The content type travels with the object.
   */
  async copy(source: string, target: string): Promise<boolean> {
    const copySource = `${this.config.bucket}/${source.split('/').map(encodeURIComponent).join('/')}`;
    try {
      await this.internal.send(new CopyObjectCommand({ Bucket: this.config.bucket, Key: target, CopySource: copySource }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.internal.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
  }

  put(key: string, body: Buffer, contentType: string): Promise<void> {
    return putObject(this.internal, this.config, key, body, contentType);
  }
}

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
