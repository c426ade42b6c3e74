/** D10: what a media file is, by its MIME type. */
export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'other';

export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'document', 'other'];

/** The MIME types POST /media accepts (spec, POST /media), with their kind. Anything else is 415. */
export const UPLOAD_MIME_TYPES: Readonly<Record<string, Exclude<MediaKind, 'other'>>> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'image/webp': 'image',
  'image/gif': 'image',
  'video/mp4': 'video',
  'video/3gpp': 'video',
  'video/quicktime': 'video',
  'audio/mpeg': 'audio',
  'audio/mp4': 'audio',
  'audio/aac': 'audio',
  'audio/ogg': 'audio',
  'audio/amr': 'audio',
  'application/pdf': 'document',
  'text/plain': 'document',
  'text/csv': 'document',
  'application/msword': 'document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'document',
  'application/vnd.ms-excel': 'document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'document',
  'application/vnd.ms-powerpoint': 'document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'document',
};

const MIB = 1024 * 1024;
/** D10 size limits per kind, in bytes. Files users send are not limited here (the chat product took them). */
export const MEDIA_SIZE_LIMITS: Readonly<Record<Exclude<MediaKind, 'other'>, number>> = {
  image: 16 * MIB,
  video: 16 * MIB,
  audio: 16 * MIB,
  document: 100 * MIB,
};
/** Spec, Limits: the absolute maximum of any upload. */
export const MEDIA_MAX_BYTES = 104_857_600;
/** D10: a business-profile avatar is a ready image of at most 5 MiB. */
export const AVATAR_MAX_BYTES = 5 * MIB;

/** D10: the kind of any MIME type, including files users send outside the upload list (`other`). */
export function mediaKindOf(mimeType: string | null | undefined): MediaKind {
  const base = (mimeType ?? '').split(';')[0].trim().toLowerCase();
  return UPLOAD_MIME_TYPES[base] ?? 'other';
}

/** Media lifetimes (spec: upload URL 15 minutes, download URL 1 hour; D13: pending records go 24 h after the window). */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;
export const DOWNLOAD_URL_TTL_SECONDS = 60 * 60;
export const LAPSED_UPLOAD_RETENTION_MS = 24 * 3600 * 1000;
/** D14: uploads per app in any rolling hour. */
export const MEDIA_UPLOADS_PER_HOUR = 100;
