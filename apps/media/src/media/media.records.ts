import type { EntityManager } from '@mikro-orm/postgresql';
import { DOWNLOAD_URL_TTL_SECONDS, type MediaKind, type MediaResource } from '#platform/contracts';
import type { Clock } from '#platform/clock';
import { isoTime, type DbTimestamp } from '#platform/service-kit';
import type { MediaBucket } from '#platform/storage';

/** A row of media.media. */
export interface MediaRow {
  media_id: string;
  app_id: string;
  source: 'app' | 'user';
  kind: MediaKind;
  mime_type: string;
  file_name: string;
  size: string | number;
  object_key: string;
  status: 'pending_upload' | 'ready' | 'invalid';
  created_at: DbTimestamp;
}

/** The app's media by id; another app's looks absent (architecture section 3). */
export async function findMedia(em: EntityManager, appId: string, mediaId: string): Promise<MediaRow | null> {
  const [row]: MediaRow[] = await em.execute(
    `select media_id, app_id, source, kind, mime_type, file_name, size, object_key, status, created_at from media.media where media_id = ? and app_id = ?`,
    [mediaId, appId],
  );
  return row ?? null;
}

/**
 * The spec's Media resource. A download URL only for ready media, valid 1 hour by S3's clock and
 * shown as 1 hour past the platform clock. Bytes that did not match their declaration never became
 * ready: the resource stays `pending_upload` (the spec has no other status), and sends say 422.
 */
export async function publicMedia(row: MediaRow, bucket: MediaBucket, clock: Clock): Promise<MediaResource> {
  const ready = row.status === 'ready';
  return {
    id: row.media_id,
    source: row.source,
    kind: row.kind,
    mimeType: row.mime_type,
    fileName: row.file_name,
    size: Number(row.size),
    status: ready ? 'ready' : 'pending_upload',
    url: ready ? await bucket.presignDownload(row.object_key, DOWNLOAD_URL_TTL_SECONDS) : null,
    urlExpiresAt: ready ? new Date(clock.nowMs() + DOWNLOAD_URL_TTL_SECONDS * 1000).toISOString() : null,
    createdAt: isoTime(row.created_at),
  };
}
