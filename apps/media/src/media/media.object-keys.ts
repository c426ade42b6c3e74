/**
 * Where a media file's bytes live. Upload URLs are presigned PUTs for keys under `uploads/` only;
 * a verified upload is served from its copy under `verified/`, which no upload URL can write, so
 * what was judged is what is served (D12). Each verification makes its own copy (`copyId`): two
 * checks running at once never write the same key.
 */
const UPLOADS = 'uploads/';
const VERIFIED = 'verified/';

export const uploadObjectKey = (appId: string, mediaId: string): string => `${UPLOADS}${appId}/${mediaId}`;

export const verifiedObjectKey = (appId: string, mediaId: string, copyId: string): string => `${VERIFIED}${appId}/${mediaId}/${copyId}`;

/** A key an upload URL may be made for. */
export const isUploadObjectKey = (key: string): boolean => key.startsWith(UPLOADS);

/** A verified copy of this media: a key only the media service writes. */
export function isVerifiedObjectKeyOf(key: string, mediaId: string): boolean {
  const [root, appId, media, copyId, ...rest] = key.split('/');
  return `${root}/` === VERIFIED && !!appId && media === mediaId && !!copyId && rest.length === 0;
}
