import { MEDIA_KINDS, type MediaKind } from '../media';
import { int, oneOf, record, str, type JsonSchema } from './schema-builders';

/** Why an upload was judged not to be what the app declared (D12). */
export const MEDIA_REJECTION_REASONS = ['size_mismatch', 'content_mismatch'] as const;
export type MediaRejectionReason = (typeof MEDIA_REJECTION_REASONS)[number];

interface FileData {
  mediaId: string;
  kind: MediaKind;
  mimeType: string;
  fileName: string;
  size: number;
  /** Key of the object in the media bucket. */
  objectKey: string;
}

/**
 * Events of the Media aggregate (stream `media-<mediaId>`), published on `media.events` keyed by
 * mediaId. The app id is on the envelope.
 */
export interface MediaUploadRequested {
  type: 'MediaUploadRequested';
  data: FileData & {
    /** When the presigned upload URL stops working, by the platform clock. */
    uploadExpiresAt: string;
  };
}
/** The uploaded bytes matched the declaration: the media is `ready`. */
export interface MediaUploadVerified {
  type: 'MediaUploadVerified';
  data: {
    mediaId: string;
    size: number;
    /**
     * The copy that was judged, which the media is served and delivered from from now on: a key no
     * upload URL can write, so later writes to the upload URL change nothing that is served. Absent
     * on media verified before copies were made; they stay served from their upload key.
     */
    objectKey?: string;
  };
}
/** The uploaded bytes did not match: sends answer 422 media_invalid. */
export interface MediaUploadRejected {
  type: 'MediaUploadRejected';
  data: { mediaId: string; reason: MediaRejectionReason; detail: string };
}
/** A file a user sent the app (source user); ready at once, the chat product stored it. */
export interface MediaReceivedFromUser {
  type: 'MediaReceivedFromUser';
  data: FileData & { messageId: string; userId: string };
}
/** D13: an upload never made it; 24 h after its window the record and any object are gone (404). */
export interface MediaDiscarded {
  type: 'MediaDiscarded';
  data: { mediaId: string; reason: 'upload_lapsed' };
}

export type MediaEvent = MediaUploadRequested | MediaUploadVerified | MediaUploadRejected | MediaReceivedFromUser | MediaDiscarded;

const fileData = {
  mediaId: str('The media (`med_…`).'),
  kind: oneOf('Kind by MIME type (D10).', MEDIA_KINDS),
  mimeType: str('Content type, as declared by the app or sent by the user.'),
  fileName: str('File name.'),
  size: int('Bytes, as declared.', { minimum: 0 }),
  objectKey: str('Key of the object in the media bucket.'),
};

export const MEDIA_EVENT_SCHEMAS: Record<MediaEvent['type'], JsonSchema> = {
  MediaUploadRequested: record({ ...fileData, uploadExpiresAt: str('End of the upload window (platform clock).', { format: 'date-time' }) }),
  MediaUploadVerified: record(
    {
      mediaId: str('The media.'),
      size: int('Bytes stored.', { minimum: 0 }),
      objectKey: str('Key of the verified copy the media is served from (absent on media verified before copies were made).'),
    },
    ['objectKey'],
  ),
  MediaUploadRejected: record({
    mediaId: str('The media.'),
    reason: oneOf('What did not match.', MEDIA_REJECTION_REASONS),
    detail: str('What was found, for people.'),
  }),
  MediaReceivedFromUser: record({
    ...fileData,
    messageId: str('The inbound message (`msg_…`).'),
    userId: str('The chat user (`usr_…`); never shown to apps.'),
  }),
  MediaDiscarded: record({ mediaId: str('The media.'), reason: oneOf('Why.', ['upload_lapsed']) }),
};
