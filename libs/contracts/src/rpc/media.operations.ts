/**
 * What media answers (uploads, reads, the check on first use) and the resources it builds.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { MediaKind } from '../media';
import type { EventRef } from '../rpc';

/** POST /media as the gateway passes it after validating the body (fileName 1–255, size a positive integer). */
export interface CreateMediaCall {
  appId: string;
  fileName: string;
  mimeType: string;
  size: number;
}

/** The spec's Media resource. */
export interface MediaResource {
  id: string;
  source: 'app' | 'user';
  kind: MediaKind;
  mimeType: string;
  fileName: string;
  size: number;
  status: 'pending_upload' | 'ready';
  url: string | null;
  urlExpiresAt: string | null;
  createdAt: string;
}

/** The spec's UploadInstruction. */
export interface UploadInstruction {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expiresAt: string;
}

/** The spec's CreateMediaResponse. */
export interface CreateMediaResponse {
  media: MediaResource;
  upload: UploadInstruction;
}

/** What a service that uses a media file (messaging for sends, profile for avatars) learns of it, with its events to wait on. */
export type MediaForUse =
  | { found: false; events: EventRef[] }
  | {
      found: true;
      source: 'app' | 'user';
      kind: MediaKind;
      status: 'pending_upload' | 'ready' | 'invalid';
      mimeType: string;
      fileName: string;
      size: number;
      /** Key of the object the file is served from: for a verified upload, its verified copy. */
      objectKey: string;
      events: EventRef[];
    };

export interface MediaOperations {
  /** POST /media: records the pending upload (D14 limit) and returns a presigned PUT. */
  'media.create': { request: CreateMediaCall; reply: CreateMediaResponse };
  /** GET /media/{id}; checks a pending upload first (D12). */
  'media.get': { request: { appId: string; mediaId: string }; reply: MediaResource };
  /** The check on first use (D12) before a send or an avatar: the media's facts and events. */
  'media.prepare': { request: { appId: string; mediaId: string }; reply: MediaForUse };
}
