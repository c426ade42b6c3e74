import { randomUUID } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client, loadS3Config, MediaBucket } from './s3';

/** MediaBucket.copy against the real S3Proxy: a server-side copy that later writes to its source do not reach. */
const config = loadS3Config(process.env);
const bucket = new MediaBucket(config);
const s3 = createS3Client(config);

async function read(key: string): Promise<{ bytes: Buffer; contentType: string | undefined }> {
  const object = await s3.send(new GetObjectCommand({ Bucket: config.bucket, Key: key }));
  return { bytes: Buffer.from(await object.Body!.transformToByteArray()), contentType: object.ContentType };
}

describe('MediaBucket.copy (real S3Proxy)', () => {
  const prefix = `test/copy-${randomUUID()}`;
  afterAll(async () => {
    for (const key of ['source', 'target']) await bucket.delete(`${prefix}/${key}`);
  });

  it('copies the bytes and the content type; a later write to the source leaves the copy as it was', async () => {
    await bucket.put(`${prefix}/source`, Buffer.from('first'), 'text/plain');
    expect(await bucket.copy(`${prefix}/source`, `${prefix}/target`)).toBe(true);
    await bucket.put(`${prefix}/source`, Buffer.from('other'), 'text/plain');
    expect(await read(`${prefix}/target`)).toEqual({ bytes: Buffer.from('first'), contentType: 'text/plain' });
  });

  it('answers false when nothing is stored at the source, and stores nothing', async () => {
    const target = `${prefix}/nothing-${randomUUID()}`;
    expect(await bucket.copy(`${prefix}/missing`, target)).toBe(false);
    await expect(s3.send(new HeadObjectCommand({ Bucket: config.bucket, Key: target }))).rejects.toMatchObject({ name: 'NotFound' });
  });
});
