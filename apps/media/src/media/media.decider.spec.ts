import { deciderSpecification } from '#platform/decider/testing';
import { mediaDecider, type MediaCommand } from './media.decider';
import { evolveMedia, initialMediaState, type MediaEvent } from './media.state';

const metadata = { now: new Date('2026-11-01T10:00:00Z') };

const spec = deciderSpecification(mediaDecider);
const MIB = 1024 * 1024;
const objectKey = 'uploads/app_1/med_1';
const uploadExpiresAt = '2026-01-01T00:15:00.000Z';

const request = (over: Partial<Extract<MediaCommand, { type: 'RequestUpload' }>['data']> = {}): MediaCommand => ({
  type: 'RequestUpload',
  data: { mediaId: 'med_1', mimeType: 'image/png', fileName: 'logo.png', size: 1000, objectKey, uploadExpiresAt, uploadsLastHour: 0, ...over },
  metadata,
});
const requested = (over: Partial<Extract<MediaEvent, { type: 'MediaUploadRequested' }>['data']> = {}): MediaEvent => ({
  type: 'MediaUploadRequested',
  data: { mediaId: 'med_1', kind: 'image', mimeType: 'image/png', fileName: 'logo.png', size: 1000, objectKey, uploadExpiresAt, ...over },
});
const verifiedKey = 'verified/app_1/med_1/copy_1';
const verified: MediaEvent = { type: 'MediaUploadVerified', data: { mediaId: 'med_1', size: 1000, objectKey: verifiedKey } };
const rejected: MediaEvent = { type: 'MediaUploadRejected', data: { mediaId: 'med_1', reason: 'content_mismatch', detail: 'declared image/png, found text' } };
const verdict = (ok: boolean, servedFrom = verifiedKey): MediaCommand =>
  ok
    ? { type: 'RecordUploadVerdict', data: { verdict: { ok: true, size: 1000, objectKey: servedFrom } }, metadata }
    : { type: 'RecordUploadVerdict', data: { verdict: { ok: false, reason: 'content_mismatch', detail: 'declared image/png, found text' } }, metadata };
const discard = (now: string): MediaCommand => ({ type: 'DiscardLapsedUpload', data: {}, metadata: { now: new Date(now) } });
const userFile = (mimeType: string): MediaCommand => ({
  type: 'RecordUserMedia',
  data: { mediaId: 'med_1', mimeType, fileName: 'f', size: 5, objectKey: 'inbound/msg_1/0', messageId: 'msg_1', userId: 'usr_1' },
  metadata,
});

describe('Media decider', () => {
  describe('upload request (POST /media, D10 and D14)', () => {
    it('a listed type within its limit is pending upload', () => spec.given([]).when(request()).then([requested()]));
    it.each([
      ['image/jpeg', 'image', 16 * MIB],
      ['video/mp4', 'video', 16 * MIB],
      ['audio/ogg', 'audio', 16 * MIB],
      ['application/pdf', 'document', 100 * MIB],
      ['text/csv', 'document', 100 * MIB],
      ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'document', 100 * MIB],
    ] as const)('%s is a %s of up to %d bytes', (mimeType, kind, limit) => {
      spec
        .given([])
        .when(request({ mimeType, size: limit }))
        .then([requested({ mimeType, kind, size: limit })]);
      spec
        .given([])
        .when(request({ mimeType, size: limit + 1 }))
        .thenThrows('media_too_large');
    });
    it.each([
      'image/svg+xml',
      'text/html',
      'application/x-msdownload',
      'application/zip',
      'application/octet-stream',
      'image/PNG',
      'image/png; charset=binary',
    ])('%s → 415 unsupported_media_type', (mimeType) => spec.given([]).when(request({ mimeType })).thenThrows('unsupported_media_type'));
    it('the type is judged before the size', () =>
      spec
        .given([])
        .when(request({ mimeType: 'text/html', size: 500 * MIB }))
        .thenThrows('unsupported_media_type'));
    it('the 100th upload in an hour is fine, the 101st is 429 media_rate_limited', () => {
      spec
        .given([])
        .when(request({ uploadsLastHour: 99 }))
        .then([requested()]);
      spec
        .given([])
        .when(request({ uploadsLastHour: 100 }))
        .thenThrows('media_rate_limited');
    });
    it('an existing media cannot be requested again', () => spec.given([requested()]).when(request()).thenThrows('invalid_transition'));
    it('an upload URL is only ever made for an upload key, never for a key verified media are served from', () =>
      spec
        .given([])
        .when(request({ objectKey: 'verified/app_1/med_0/copy_1' }))
        .thenThrows('internal_error'));
  });

  describe('verification (D12)', () => {
    it('matching bytes make it ready, served from the copy that was judged', () => spec.given([requested()]).when(verdict(true)).then([verified]));
    it.each([
      ['its upload key, which the upload URL can still write', objectKey],
      ['another media’s copy', 'verified/app_1/med_2/copy_1'],
      ['a key outside the verified copies', 'inbound/msg_1/0'],
      ['a key with more parts', `${verifiedKey}/x`],
    ])('a match is never served from %s', (_what, servedFrom) => spec.given([requested()]).when(verdict(true, servedFrom)).thenThrows('internal_error'));
    it('once ready, the file is its verified copy; media verified before copies were made keep their upload key', () => {
      const fold = (events: MediaEvent[]) => events.reduce(evolveMedia, initialMediaState());
      expect(fold([requested(), verified])).toMatchObject({ status: 'ready', file: { objectKey: verifiedKey } });
      expect(fold([requested(), { type: 'MediaUploadVerified', data: { mediaId: 'med_1', size: 1000 } }])).toMatchObject({
        status: 'ready',
        file: { objectKey },
      });
    });
    it('other bytes make it invalid', () => spec.given([requested()]).when(verdict(false)).then([rejected]));
    it('the first verdict stands', () => {
      spec.given([requested(), verified]).when(verdict(false)).then([]);
      spec.given([requested(), rejected]).when(verdict(true)).then([]);
    });
    it('nothing to verify for a file a user sent', () =>
      spec
        .given([{ type: 'MediaReceivedFromUser', data: { ...requested().data, messageId: 'msg_1', userId: 'usr_1' } } as MediaEvent])
        .when(verdict(false))
        .then([]));
  });

  describe('lapsed upload windows (D13)', () => {
    it('a pending upload is discarded 24 h after its window', () =>
      spec
        .given([requested()])
        .when(discard('2026-01-02T00:15:00.000Z'))
        .then([{ type: 'MediaDiscarded', data: { mediaId: 'med_1', reason: 'upload_lapsed' } }]));
    it('not a millisecond earlier', () => spec.given([requested()]).when(discard('2026-01-02T00:14:59.999Z')).thenThrows('invalid_transition'));
    it('ready and invalid media stay', () => {
      spec.given([requested(), verified]).when(discard('2026-02-01T00:00:00.000Z')).then([]);
      spec.given([requested(), rejected]).when(discard('2026-02-01T00:00:00.000Z')).then([]);
    });
    it('a discarded upload can no longer be verified', () =>
      spec
        .given([requested(), { type: 'MediaDiscarded', data: { mediaId: 'med_1', reason: 'upload_lapsed' } }])
        .when(verdict(true))
        .then([]));
  });

  describe('files users send (source user)', () => {
    it('are ready at once, with their kind from the type', () =>
      spec
        .given([])
        .when(userFile('image/jpeg'))
        .then([
          {
            type: 'MediaReceivedFromUser',
            data: {
              mediaId: 'med_1',
              kind: 'image',
              mimeType: 'image/jpeg',
              fileName: 'f',
              size: 5,
              objectKey: 'inbound/msg_1/0',
              messageId: 'msg_1',
              userId: 'usr_1',
            },
          },
        ]));
    it('a type outside the upload list is other (D10)', () =>
      spec
        .given([])
        .when(userFile('application/zip'))
        .then([
          {
            type: 'MediaReceivedFromUser',
            data: {
              mediaId: 'med_1',
              kind: 'other',
              mimeType: 'application/zip',
              fileName: 'f',
              size: 5,
              objectKey: 'inbound/msg_1/0',
              messageId: 'msg_1',
              userId: 'usr_1',
            },
          },
        ]));
    it('the same file seen again changes nothing', () =>
      spec
        .given([
          {
            type: 'MediaReceivedFromUser',
            data: { mediaId: 'med_1', kind: 'image', mimeType: 'image/jpeg', fileName: 'f', size: 5, objectKey: 'k', messageId: 'msg_1', userId: 'usr_1' },
          },
        ])
        .when(userFile('image/jpeg'))
        .then([]));
  });
});
