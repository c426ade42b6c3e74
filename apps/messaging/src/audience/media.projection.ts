import type { EntityManager } from '@mikro-orm/postgresql';
import { TOPICS, type DomainEvent, type MediaUploadRequested } from '#platform/contracts';
import type { ConsumerSpec } from '#platform/service-kit';

export const MEDIA_CONSUMER = 'media';

async function insertMedia(em: EntityManager, event: DomainEvent, d: Omit<MediaUploadRequested['data'], 'uploadExpiresAt'>, status: string): Promise<void> {
  await em.execute(
    `insert into messaging.media (media_id, app_id, kind, status, mime_type, file_name, size, object_key) values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (media_id) do nothing`,
    [d.mediaId, event.appId, d.kind, status, d.mimeType, d.fileName, d.size, d.objectKey],
  );
}

async function setStatus(em: EntityManager, mediaId: string, status: 'ready' | 'invalid', objectKey: string | null = null): Promise<void> {
  await em.execute(`update messaging.media set status = ?, object_key = coalesce(?, object_key) where media_id = ? and status = 'pending_upload'`, [
    status,
    objectKey,
    mediaId,
  ]);
}

/**
 * Media readiness for the send rules (D9 media checks, D11), from media.events. A media stream's
 * events share its key, so they arrive in order; a verdict only ever moves a pending upload.
 */
export const mediaConsumer: ConsumerSpec = {
  name: MEDIA_CONSUMER,
  topics: [TOPICS.mediaEvents],
  handlers: {
    MediaUploadRequested: (em, event) => insertMedia(em, event, event.data, 'pending_upload'),
    MediaReceivedFromUser: (em, event) => insertMedia(em, event, event.data, 'ready'),
    // Sends hand over the verified copy, never the upload key an upload URL can still write (D12).
    MediaUploadVerified: (em, event) => setStatus(em, event.data.mediaId, 'ready', event.data.objectKey ?? null),
    MediaUploadRejected: (em, event) => setStatus(em, event.data.mediaId, 'invalid'),
    MediaDiscarded: async (em, event) => {
      await em.execute(`delete from messaging.media where media_id = ?`, [event.data.mediaId]);
    },
  },
};
