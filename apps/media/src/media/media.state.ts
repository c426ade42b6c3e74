import type { MediaEvent, MediaKind } from '#platform/contracts';

export type { MediaEvent };

/** What is known of the file itself. */
export interface MediaFile {
  mediaId: string;
  kind: MediaKind;
  mimeType: string;
  fileName: string;
  size: number;
  /** Where its bytes are: the upload key until verified, then the verified copy it is served from. */
  objectKey: string;
}

/**
 * One media file (stream `media-<mediaId>`). `invalid`: the uploaded bytes did not match the
 * declaration (D12); `discarded`: the upload never came and the record is gone (D13).
 */
export type MediaState =
  | { status: 'absent' }
  | { status: 'pending_upload'; file: MediaFile; uploadExpiresAt: string }
  | { status: 'ready' | 'invalid'; file: MediaFile; source: 'app' | 'user' }
  | { status: 'discarded' };

export const initialMediaState = (): MediaState => ({ status: 'absent' });

export function evolveMedia(state: MediaState, event: MediaEvent): MediaState {
  switch (event.type) {
    case 'MediaUploadRequested': {
      const { uploadExpiresAt, ...file } = event.data;
      return { status: 'pending_upload', file, uploadExpiresAt };
    }
    case 'MediaReceivedFromUser': {
      const { messageId: _message, userId: _user, ...file } = event.data;
      return { status: 'ready', file, source: 'user' };
    }
    case 'MediaUploadVerified':
      // Media verified before copies were made have no objectKey here: they keep their upload key.
      return state.status === 'pending_upload'
        ? { status: 'ready', file: { ...state.file, objectKey: event.data.objectKey ?? state.file.objectKey }, source: 'app' }
        : state;
    case 'MediaUploadRejected':
      return state.status === 'pending_upload' ? { status: 'invalid', file: state.file, source: 'app' } : state;
    case 'MediaDiscarded':
      return { status: 'discarded' };
  }
}
