import {
  LAPSED_UPLOAD_RETENTION_MS,
  MEDIA_MAX_BYTES,
  MEDIA_SIZE_LIMITS,
  MEDIA_UPLOADS_PER_HOUR,
  mediaKindOf,
  UPLOAD_MIME_TYPES,
  type MediaRejectionReason,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { isUploadObjectKey, isVerifiedObjectKeyOf } from './media.object-keys';
import { evolveMedia, initialMediaState, type MediaEvent, type MediaFile, type MediaState } from './media.state';

export type MediaCommand =
  /** POST /media. `uploadsLastHour` counts the app's uploads in the rolling hour before `metadata.now` (D14). */
  | Command<
      'RequestUpload',
      { mediaId: string; mimeType: string; fileName: string; size: number; objectKey: string; uploadExpiresAt: string; uploadsLastHour: number }
    >
  /** D12. `objectKey` of a match: the copy that was judged; the media is served from it after this. */
  | Command<'RecordUploadVerdict', { verdict: { ok: true; size: number; objectKey: string } | { ok: false; reason: MediaRejectionReason; detail: string } }>
  | Command<'RecordUserMedia', Omit<MediaFile, 'kind'> & { messageId: string; userId: string }>
  /** D13 sweeper. */
  | Command<'DiscardLapsedUpload', Record<string, never>>;

export function decideMedia(command: MediaCommand, state: MediaState): MediaEvent[] {
  switch (command.type) {
    case 'RequestUpload': {
      if (state.status !== 'absent') throw new DomainError('invalid_transition', 'The media exists already.');
      const d = command.data;
      // The URL presigned for this key must never be able to write what a verified media serves.
      if (!isUploadObjectKey(d.objectKey)) throw new DomainError('internal_error', 'Uploads go to upload keys only.');
      const kind = UPLOAD_MIME_TYPES[d.mimeType];
      if (!kind) throw new DomainError('unsupported_media_type', `${d.mimeType} cannot be uploaded.`);
      if (d.size > MEDIA_SIZE_LIMITS[kind] || d.size > MEDIA_MAX_BYTES) {
        throw new DomainError('media_too_large', `A ${kind} may have at most ${Math.min(MEDIA_SIZE_LIMITS[kind], MEDIA_MAX_BYTES)} bytes.`);
      }
      if (d.uploadsLastHour >= MEDIA_UPLOADS_PER_HOUR) throw new DomainError('media_rate_limited', `At most ${MEDIA_UPLOADS_PER_HOUR} uploads per hour.`);
      return [
        {
          type: 'MediaUploadRequested',
          data: {
            mediaId: d.mediaId,
            kind,
            mimeType: d.mimeType,
            fileName: d.fileName,
            size: d.size,
            objectKey: d.objectKey,
            uploadExpiresAt: d.uploadExpiresAt,
          },
        },
      ];
    }
    case 'RecordUploadVerdict': {
      // Verification may run on several paths at once (a send, GET /media, the sweeper): the first verdict stands.
      if (state.status !== 'pending_upload') return [];
      const verdict = command.data.verdict;
      if (!verdict.ok) {
        return [{ type: 'MediaUploadRejected', data: { mediaId: state.file.mediaId, reason: verdict.reason, detail: verdict.detail } }];
      }
      // Served from the upload key, verified media would change with every later PUT to the upload URL.
      if (!isVerifiedObjectKeyOf(verdict.objectKey, state.file.mediaId)) {
        throw new DomainError('internal_error', 'A verified upload is served from its own verified copy only.');
      }
      return [{ type: 'MediaUploadVerified', data: { mediaId: state.file.mediaId, size: verdict.size, objectKey: verdict.objectKey } }];
    }
    case 'RecordUserMedia':
      // The same message seen again (a replayed topic) names the same file.
      if (state.status !== 'absent') return [];
      return [{ type: 'MediaReceivedFromUser', data: { ...command.data, kind: mediaKindOf(command.data.mimeType) } }];
    case 'DiscardLapsedUpload': {
      if (state.status !== 'pending_upload') return [];
      if (command.metadata.now.getTime() < Date.parse(state.uploadExpiresAt) + LAPSED_UPLOAD_RETENTION_MS) {
        throw new DomainError('invalid_transition', 'The upload window closed less than 24 hours ago.');
      }
      return [{ type: 'MediaDiscarded', data: { mediaId: state.file.mediaId, reason: 'upload_lapsed' } }];
    }
    default:
      return assertNever(command);
  }
}

export const mediaDecider: Decider<MediaState, MediaCommand, MediaEvent> = {
  initialState: initialMediaState,
  decide: decideMedia,
  evolve: evolveMedia,
};
