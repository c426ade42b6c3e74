import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { DOWNLOAD_URL_TTL_SECONDS, UPLOAD_URL_TTL_SECONDS } from '#platform/contracts';
import { loadS3Config, MediaBucket } from '#platform/storage';
import {
  admin,
  adminUrl,
  advanceClock,
  api,
  appWithTester,
  createTestApp,
  eventually,
  expectError,
  expectStatus,
  http,
  platformNow,
  sendMessage,
  simInbox,
  stackPid,
  type TestApp,
} from '#platform/testing';

const MIB = 1024 * 1024;
/** A real 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A 1×1 RGBA PNG of one colour: every colour makes a valid PNG of the same length. */
function onePixelPng(rgba: [number, number, number, number]): Buffer {
  const u32 = (value: number) => {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(value);
    return out;
  };
  const chunk = (type: string, data: Buffer) => {
    const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    return Buffer.concat([u32(data.length), typeAndData, u32(crc32(typeAndData))]);
  };
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', Buffer.concat([u32(1), u32(1), Buffer.from([8, 6, 0, 0, 0])])),
    chunk('IDAT', deflateSync(Buffer.from([0, ...rgba]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

interface Upload {
  url: string;
  method: string;
  headers: Record<string, string>;
  expiresAt: string;
}

async function createMedia(app: TestApp, body: { fileName: string; mimeType: string; size: number }) {
  return expectStatus(await api('POST', '/media', app.sandboxKey, body), 201).body as { media: { id: string } & Record<string, unknown>; upload: Upload };
}

/** The upload as a client does it: plain fetch with the returned URL and headers. */
function put(upload: Upload, bytes: Buffer, headers: Record<string, string> = upload.headers): Promise<Response> {
  return fetch(upload.url, { method: upload.method, headers, body: bytes });
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

async function uploadedPng(app: TestApp): Promise<string> {
  const { media, upload } = await createMedia(app, { fileName: 'logo.png', mimeType: 'image/png', size: PNG.length });
  expect((await put(upload, PNG)).status).toBe(200);
  return media.id;
}

/** The calls the gateway made to messaging and to media so far (every operation and outcome), from its metrics. */
async function gatewayCallsTo(): Promise<{ messaging: number; media: number }> {
  const text = (await http<string>(`${new URL(adminUrl()).origin}/metrics`)).body;
  const total = (target: string) =>
    [...text.matchAll(/^rpc_client_duration_seconds_count\{([^}]*)\} (\d+)$/gm)]
      .filter((m) => m[1].includes(`target="${target}"`))
      .reduce((sum, m) => sum + Number(m[2]), 0);
  return { messaging: total('messaging'), media: total('media') };
}

describe('media on S3 (e2e, real S3Proxy)', () => {
  describe('POST /media', () => {
    it('answers 201 with the pending media and a presigned PUT that signs Content-Type and Content-Length', async () => {
      const app = await createTestApp();
      const before = await platformNow();
      const { media, upload } = await createMedia(app, { fileName: 'logo.png', mimeType: 'image/png', size: PNG.length });
      expect(media).toEqual({
        id: expect.stringMatching(/^med_/),
        source: 'app',
        kind: 'image',
        mimeType: 'image/png',
        fileName: 'logo.png',
        size: PNG.length,
        status: 'pending_upload',
        url: null,
        urlExpiresAt: null,
        createdAt: expect.any(String),
      });
      expect(upload.method).toBe('PUT');
      expect(upload.headers).toEqual({ 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) });
      const expiresIn = Date.parse(upload.expiresAt) - before.getTime();
      expect(expiresIn).toBeGreaterThanOrEqual(UPLOAD_URL_TTL_SECONDS * 1000);
      expect(expiresIn).toBeLessThan(UPLOAD_URL_TTL_SECONDS * 1000 + 60_000);
      // What real S3 and MinIO judge: the signed headers, path style, and no checksum of an empty body.
      const url = new URL(upload.url);
      expect(url.searchParams.get('X-Amz-SignedHeaders')!.split(';')).toEqual(expect.arrayContaining(['content-length', 'content-type', 'host']));
      expect(url.searchParams.get('X-Amz-Expires')).toBe(String(UPLOAD_URL_TTL_SECONDS));
      expect([...url.searchParams.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
      expect(url.pathname).toMatch(new RegExp(`^/${loadS3Config(process.env).bucket}/uploads/${app.appId}/${media.id}$`));
    });

    it.each([
      [{ fileName: 'x.svg', mimeType: 'image/svg+xml', size: 10 }, 415, 'unsupported_media_type'],
      [{ fileName: 'x.html', mimeType: 'text/html', size: 10 }, 415, 'unsupported_media_type'],
      [{ fileName: 'x.exe', mimeType: 'application/x-msdownload', size: 10 }, 415, 'unsupported_media_type'],
      [{ fileName: 'x.zip', mimeType: 'application/zip', size: 10 }, 415, 'unsupported_media_type'],
      [{ fileName: 'big.png', mimeType: 'image/png', size: 16 * MIB + 1 }, 413, 'media_too_large'],
      [{ fileName: 'big.mp4', mimeType: 'video/mp4', size: 16 * MIB + 1 }, 413, 'media_too_large'],
      [{ fileName: 'big.pdf', mimeType: 'application/pdf', size: 100 * MIB + 1 }, 413, 'media_too_large'],
      [{ fileName: 'x.png', mimeType: 'image/png', size: 0 }, 400, 'invalid_request'],
      [{ fileName: 'x.png', mimeType: 'image/png', size: 1.5 }, 400, 'invalid_request'],
      [{ fileName: 'x.png', mimeType: 'image/png', size: '10' }, 400, 'invalid_request'],
      [{ fileName: '', mimeType: 'image/png', size: 10 }, 400, 'invalid_request'],
      [{ fileName: 'x'.repeat(256), mimeType: 'image/png', size: 10 }, 400, 'invalid_request'],
      [{ mimeType: 'image/png', size: 10 }, 400, 'invalid_request'],
    ])('%j → %d %s', async (body, status, code) => {
      const app = await createTestApp();
      expectError(await api('POST', '/media', app.sandboxKey, body), status, code);
    });

    it('accepts exactly the limits: a 16 MiB image and a 100 MiB document', async () => {
      const app = await createTestApp();
      await createMedia(app, { fileName: 'max.png', mimeType: 'image/png', size: 16 * MIB });
      await createMedia(app, { fileName: 'max.pdf', mimeType: 'application/pdf', size: 100 * MIB });
    });

    it('the 101st upload within an hour is 429 media_rate_limited; an hour later uploads work again', async () => {
      const app = await createTestApp();
      const body = { fileName: 'a.png', mimeType: 'image/png', size: 10 };
      const answers = await Promise.all(Array.from({ length: 100 }, () => api('POST', '/media', app.sandboxKey, body)));
      expect(answers.map((a) => a.status)).toEqual(Array(100).fill(201));
      expectError(await api('POST', '/media', app.sandboxKey, body), 429, 'media_rate_limited');
      const other = await createTestApp();
      await createMedia(other, body);
      await advanceClock(3600 + 60);
      await createMedia(app, body);
    });

    it('needs media:write; GET /media needs messages:read', async () => {
      const app = await createTestApp({ scopes: ['messages:send'] });
      expectError(await api('POST', '/media', app.sandboxKey, { fileName: 'a.png', mimeType: 'image/png', size: 10 }), 403, 'insufficient_scope');
      expectError(await api('GET', '/media/med_x', app.sandboxKey), 403, 'insufficient_scope');
    });
  });

  describe('upload, verification, download', () => {
    it('bytes uploaded with the returned url and headers make the media ready; the download url returns the exact bytes', async () => {
      const app = await createTestApp();
      const id = await uploadedPng(app);
      const before = await platformNow();
      const media = expectStatus(await api('GET', `/media/${id}`, app.sandboxKey), 200).body;
      expect(media).toMatchObject({ id, source: 'app', kind: 'image', status: 'ready', url: expect.any(String), urlExpiresAt: expect.any(String) });
      const expiresIn = Date.parse(media.urlExpiresAt) - before.getTime();
      expect(expiresIn).toBeGreaterThanOrEqual(DOWNLOAD_URL_TTL_SECONDS * 1000);
      expect(expiresIn).toBeLessThan(DOWNLOAD_URL_TTL_SECONDS * 1000 + 60_000);
      expect((await download(media.url)).equals(PNG)).toBe(true);
    });

    it('another app cannot see it (404 not_found); an id over 64 characters is 400', async () => {
      const app = await createTestApp();
      const id = await uploadedPng(app);
      const other = await createTestApp();
      expectError(await api('GET', `/media/${id}`, other.sandboxKey), 404, 'not_found');
      expectError(await api('GET', `/media/med_${'x'.repeat(61)}`, app.sandboxKey), 400, 'invalid_request');
      expectError(await api('GET', '/media/med_unknown', app.sandboxKey), 404, 'not_found');
    });

    it('S3 refuses a body of another size or another Content-Type than the one signed', async () => {
      const app = await createTestApp();
      const { upload } = await createMedia(app, { fileName: 'logo.png', mimeType: 'image/png', size: PNG.length });
      const shorter = await put(upload, PNG.subarray(0, PNG.length - 1), { 'Content-Type': 'image/png' });
      expect(shorter.status).toBeGreaterThanOrEqual(400);
      const otherType = await put(upload, PNG, { 'Content-Type': 'image/jpeg', 'Content-Length': String(PNG.length) });
      expect(otherType.status).toBeGreaterThanOrEqual(400);
    });

    it('S3 refuses an upload url once its signature lapsed', async () => {
      // S3 judges lifetimes by its own clock: a one-second signature made the same way shows it.
      const bucket = new MediaBucket(loadS3Config(process.env));
      const url = await bucket.presignUpload(`uploads/test/lapse-${Date.now()}`, 'text/plain', 2, 1);
      const attempt = () => fetch(url, { method: 'PUT', headers: { 'Content-Type': 'text/plain', 'Content-Length': '2' }, body: 'hi' });
      await eventually(async () => (await attempt()).status === 403, 10_000, 250);
    });

    it('after the upload window a media that never got its bytes stays pending_upload (sends: 409), and is gone 24 h later (404)', async () => {
      const { app, appUserId } = await appWithTester();
      const { media } = await createMedia(app, { fileName: 'late.png', mimeType: 'image/png', size: PNG.length });
      await advanceClock(UPLOAD_URL_TTL_SECONDS + 60);
      expect(expectStatus(await api('GET', `/media/${media.id}`, app.sandboxKey), 200).body).toMatchObject({ status: 'pending_upload', url: null });
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId: media.id }), 409, 'media_not_uploaded');
      await advanceClock(24 * 3600);
      await eventually(async () => (await api('GET', `/media/${media.id}`, app.sandboxKey)).status === 404);
    });

    it('after the platform clock moved days ahead, presigned urls still work and their lifetimes read from the platform clock', async () => {
      await advanceClock(3 * 24 * 3600);
      const app = await createTestApp();
      const now = await platformNow();
      const { media, upload } = await createMedia(app, { fileName: 'logo.png', mimeType: 'image/png', size: PNG.length });
      expect(Math.abs(Date.parse(upload.expiresAt) - now.getTime() - UPLOAD_URL_TTL_SECONDS * 1000)).toBeLessThan(60_000);
      expect((await put(upload, PNG)).status).toBe(200);
      const ready = expectStatus(await api('GET', `/media/${media.id}`, app.sandboxKey), 200).body;
      expect(Math.abs(Date.parse(ready.urlExpiresAt) - now.getTime() - DOWNLOAD_URL_TTL_SECONDS * 1000)).toBeLessThan(60_000);
      expect((await download(ready.url)).equals(PNG)).toBe(true);
    });

    it('a 100 MiB document is verified without the media service reading it into memory', async () => {
      const app = await createTestApp();
      const size = 100 * MIB;
      const bytes = Buffer.alloc(size, 0x20);
      bytes.write('%PDF-1.7\n', 0, 'latin1');
      const { media, upload } = await createMedia(app, { fileName: 'manual.pdf', mimeType: 'application/pdf', size });
      const peakBefore = peakRssMiB(stackPid('media'));
      expect((await put(upload, bytes)).status).toBe(200);
      expect(expectStatus(await api('GET', `/media/${media.id}`, app.sandboxKey), 200).body.status).toBe('ready');
      const peakAfter = peakRssMiB(stackPid('media'));
      process.stdout.write(`media service peak RSS: ${peakBefore} MiB before, ${peakAfter} MiB after verifying a 100 MiB upload\n`);
      // Reading the file would add at least its 100 MiB; sniffing reads a few KiB.
      expect(peakAfter - peakBefore).toBeLessThan(32);
    });
  });

  describe('once verified, what a media serves cannot change (D12)', () => {
    const ORIGINAL = onePixelPng([0xff, 0, 0, 0xff]);
    const REPLACEMENT = onePixelPng([0, 0, 0xff, 0xff]);

    /** An image uploaded and verified (GET /media says ready), with the upload instruction that is still valid. */
    async function readyImage(app: TestApp): Promise<{ id: string; upload: Upload; url: string }> {
      const { media, upload } = await createMedia(app, { fileName: 'logo.png', mimeType: 'image/png', size: ORIGINAL.length });
      expect((await put(upload, ORIGINAL)).status).toBe(200);
      const ready = expectStatus(await api('GET', `/media/${media.id}`, app.sandboxKey), 200).body;
      expect(ready.status).toBe('ready');
      return { id: media.id, upload, url: ready.url };
    }

    /** What an attacker with the upload URL does after verification: other bytes of the same size and type. */
    async function overwrite(upload: Upload): Promise<void> {
      expect(REPLACEMENT.length).toBe(ORIGINAL.length);
      expect(REPLACEMENT.equals(ORIGINAL)).toBe(false);
      expect(Date.parse(upload.expiresAt)).toBeGreaterThan((await platformNow()).getTime());
      // S3 takes the PUT (the URL is valid); what matters is that nothing serves those bytes.
      expect((await put(upload, REPLACEMENT)).status).toBe(200);
    }

    it('GET /media/{id}, and the download URL it gave before, still return the verified bytes', async () => {
      const app = await createTestApp();
      const { id, upload, url: urlBefore } = await readyImage(app);
      await overwrite(upload);
      const after = expectStatus(await api('GET', `/media/${id}`, app.sandboxKey), 200).body;
      expect(after).toMatchObject({ status: 'ready', size: ORIGINAL.length });
      expect((await download(after.url)).equals(ORIGINAL)).toBe(true);
      expect((await download(urlBefore)).equals(ORIGINAL)).toBe(true);
    });

    it('a message sent with it delivers the verified bytes to its recipient', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const { id: mediaId, upload } = await readyImage(app);
      await overwrite(upload);
      const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId }), 202).body;
      const received = (await eventually(async () => (await simInbox(userId, app.appId)).find((m) => m.messageId === sent.id)))!;
      expect((await download(received.media[0].url)).equals(ORIGINAL)).toBe(true);
      // Nor does a write after delivery reach the recipient.
      await overwrite(upload);
      const again = (await simInbox(userId, app.appId)).find((m) => m.messageId === sent.id)!;
      expect((await download(again.media[0].url)).equals(ORIGINAL)).toBe(true);
    });

    it('what a later PUT stores at the upload key is removed once the upload URL has lapsed', async () => {
      const app = await createTestApp();
      const { id, upload } = await readyImage(app);
      await overwrite(upload);
      const bucket = new MediaBucket(loadS3Config(process.env));
      const uploadKey = new URL(upload.url).pathname.split('/').slice(2).join('/');
      expect(await bucket.size(uploadKey)).toBe(REPLACEMENT.length);
      await advanceClock(UPLOAD_URL_TTL_SECONDS + 6 * 60);
      await eventually(async () => (await bucket.size(uploadKey)) === null);
      const media = expectStatus(await api('GET', `/media/${id}`, app.sandboxKey), 200).body;
      expect((await download(media.url)).equals(ORIGINAL)).toBe(true);
    });

    it('an avatar set through the API keeps serving the verified bytes', async () => {
      const app = await createTestApp();
      const { id, upload } = await readyImage(app);
      expectStatus(await api('PATCH', '/business-profile', app.sandboxKey, { avatarMediaId: id }), 200);
      await overwrite(upload);
      const profile = expectStatus(await api('GET', '/business-profile', app.sandboxKey), 200).body;
      expect((await download(profile.avatarUrl)).equals(ORIGINAL)).toBe(true);
    });

    it('an avatar whose upload is verified by the PATCH itself keeps serving the verified bytes', async () => {
      const app = await createTestApp();
      const { media, upload } = await createMedia(app, { fileName: 'logo.png', mimeType: 'image/png', size: ORIGINAL.length });
      expect((await put(upload, ORIGINAL)).status).toBe(200);
      // No GET /media first: the PATCH checks the upload on first use (D12).
      expectStatus(await api('PATCH', '/business-profile', app.sandboxKey, { avatarMediaId: media.id }), 200);
      await overwrite(upload);
      const profile = expectStatus(await api('GET', '/business-profile', app.sandboxKey), 200).body;
      expect((await download(profile.avatarUrl)).equals(ORIGINAL)).toBe(true);
    });
  });

  describe('media messages', () => {
    it('an uploaded image is sent with its caption; GET /messages lists it and the recipient downloads the exact bytes', async () => {
      const { app, userId, appUserId } = await appWithTester();
      const mediaId = await uploadedPng(app);
      // No GET /media first: the send itself checks the upload (D12 "on first use").
      const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId, text: 'Our new logo' }), 202).body;
      const message = expectStatus(await api('GET', `/messages/${sent.id}`, app.sandboxKey), 200).body;
      expect(message).toMatchObject({
        type: 'image',
        text: 'Our new logo',
        media: [{ id: mediaId, mimeType: 'image/png', fileName: 'logo.png', size: PNG.length }],
      });
      const received = (await eventually(async () => (await simInbox(userId, app.appId)).find((m) => m.messageId === sent.id)))!;
      expect(received.media).toHaveLength(1);
      expect((await download(received.media[0].url)).equals(PNG)).toBe(true);
    });

    it('a send of a media checked on first use makes one call to messaging, which waits for the verdict itself (ADR 0214)', async () => {
      const { app, appUserId } = await appWithTester();
      // Uploaded, not yet verified: media.prepare verifies it within the send, and messaging must apply that verdict to decide.
      const mediaId = await uploadedPng(app);
      const before = await gatewayCallsTo();
      expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId }), 202);
      const after = await gatewayCallsTo();
      // The gateway records a call when its reply is read, so both are counted by the time the send is answered.
      expect(after.messaging - before.messaging).toBe(1);
      expect(after.media - before.media).toBe(1);
    });

    it('before the upload a send is 409 media_not_uploaded; bytes that differ from the declaration 422 media_invalid', async () => {
      const { app, appUserId } = await appWithTester();
      const { media, upload } = await createMedia(app, { fileName: 'logo.png', mimeType: 'image/png', size: 12 });
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId: media.id }), 409, 'media_not_uploaded');
      expect((await put(upload, Buffer.from('hello world!'))).status).toBe(200);
      expectError(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId: media.id }), 422, 'media_invalid');
      expect(expectStatus(await api('GET', `/media/${media.id}`, app.sandboxKey), 200).body).toMatchObject({ status: 'pending_upload', url: null });
    });

    it('the message type must fit the kind (D11): an image is no video, a document goes as file; unknown ids are 400 on mediaId', async () => {
      const { app, appUserId } = await appWithTester();
      const image = await uploadedPng(app);
      const csv = Buffer.from('id,name\n1,anvil\n');
      const { media: doc, upload } = await createMedia(app, { fileName: 'prices.csv', mimeType: 'text/csv', size: csv.length });
      expect((await put(upload, csv)).status).toBe(200);
      const wrong = await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'video', mediaId: image });
      expectError(wrong, 400, 'invalid_request');
      expect(wrong.body.error.details[0].field).toBe('mediaId');
      expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'file', mediaId: doc.id }), 202);
      const other = await createTestApp();
      const foreign = await uploadedPng(other);
      expect((await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'image', mediaId: foreign })).body.error.details[0].field).toBe('mediaId');
    });

    it('a file a user sends lands in S3 as media of source user: listed in the message and fetched with GET /media', async () => {
      const { app, userId } = await appWithTester();
      const sent = expectStatus(
        await admin('POST', `/sim/users/${userId}/messages`, {
          appId: app.appId,
          type: 'image',
          text: 'my receipt',
          media: [{ fileName: 'receipt.png', mimeType: 'image/png', base64: PNG.toString('base64') }],
        }),
        201,
      ).body;
      const message = expectStatus(await api('GET', `/messages/${sent.id}`, app.sandboxKey), 200).body;
      expect(message.media).toEqual([{ id: expect.stringMatching(/^med_/), mimeType: 'image/png', fileName: 'receipt.png', size: PNG.length }]);
      const media = expectStatus(await api('GET', `/media/${message.media[0].id}`, app.sandboxKey), 200).body;
      expect(media).toMatchObject({ source: 'user', kind: 'image', status: 'ready', fileName: 'receipt.png', size: PNG.length });
      expect((await download(media.url)).equals(PNG)).toBe(true);
      const other = await createTestApp();
      expectError(await api('GET', `/media/${message.media[0].id}`, other.sandboxKey), 404, 'not_found');
    });
  });

  describe('business profile avatar (PATCH /business-profile avatarMediaId, D17)', () => {
    it('a ready image becomes the avatar; avatarUrl downloads it without auth; anything else is 400 on avatarMediaId', async () => {
      const app = await createTestApp();
      const avatar = await uploadedPng(app);
      const profile = expectStatus(await api('PATCH', '/business-profile', app.sandboxKey, { avatarMediaId: avatar }), 200).body;
      expect((await download(profile.avatarUrl)).equals(PNG)).toBe(true);
      const read = expectStatus(await api('GET', '/business-profile', app.sandboxKey), 200).body;
      expect((await download(read.avatarUrl)).equals(PNG)).toBe(true);
      expect(Number(new URL(read.avatarUrl).searchParams.get('X-Amz-Expires'))).toBeGreaterThanOrEqual(3600);

      const { media: pending } = await createMedia(app, { fileName: 'later.png', mimeType: 'image/png', size: PNG.length });
      const csv = Buffer.from('a,b\n1,2\n');
      const { media: doc, upload } = await createMedia(app, { fileName: 'a.csv', mimeType: 'text/csv', size: csv.length });
      expect((await put(upload, csv)).status).toBe(200);
      const big = Buffer.concat([PNG, Buffer.alloc(5 * MIB + 1 - PNG.length)]);
      const { media: large, upload: largeUpload } = await createMedia(app, { fileName: 'big.png', mimeType: 'image/png', size: big.length });
      expect((await put(largeUpload, big)).status).toBe(200);
      for (const mediaId of [pending.id, doc.id, large.id, 'med_unknown', await uploadedPng(await createTestApp())]) {
        const refused = await api('PATCH', '/business-profile', app.sandboxKey, { avatarMediaId: mediaId });
        expectError(refused, 400, 'invalid_request');
        expect(refused.body.error.details[0].field).toBe('avatarMediaId');
      }
      expect(expectStatus(await api('PATCH', '/business-profile', app.sandboxKey, { avatarMediaId: null }), 200).body.avatarUrl).toBeNull();
    });
  });
});

function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
}
