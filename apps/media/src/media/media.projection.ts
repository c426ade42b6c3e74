import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEventGuard } from '#platform/event-store';
import type { DomainEvent } from '#platform/contracts';
import type { MediaEvent } from './media.state';

const isMediaEvent = storedEventGuard<MediaEvent>({
  MediaUploadRequested: true,
  MediaUploadVerified: true,
  MediaUploadRejected: true,
  MediaReceivedFromUser: true,
  MediaDiscarded: true,
});

/** Inline projection of media streams into media.media. */
export async function projectMediaEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    if (!isMediaEvent(stored)) continue;
    const event = stored;
    const v = stored.streamVersion;
    switch (event.type) {
      case 'MediaUploadRequested':
      case 'MediaReceivedFromUser': {
        const d = event.data;
        const fromUser = event.type === 'MediaReceivedFromUser';
        await em.execute(
          `insert into media.media (media_id, app_id, source, kind, mime_type, file_name, size, object_key, status, upload_expires_at, message_id, created_at, version)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            d.mediaId,
            stored.appId,
            fromUser ? 'user' : 'app',
            d.kind,
            d.mimeType,
            d.fileName,
            d.size,
            d.objectKey,
            fromUser ? 'ready' : 'pending_upload',
            fromUser ? null : new Date((d as { uploadExpiresAt: string }).uploadExpiresAt),
            fromUser ? (d as { messageId: string }).messageId : null,
            new Date(stored.occurredAt),
            v,
          ],
        );
        break;
      }
      case 'MediaUploadVerified':
        if (event.data.objectKey) {
          // The upload key serves nothing from now on; the sweeper removes it once no URL can write it.
          await em.execute(
            `insert into media.upload_leftovers (object_key, removable_at)
             select object_key, upload_expires_at from media.media where media_id = ? and object_key <> ? and upload_expires_at is not null
             on conflict do nothing`,
            [event.data.mediaId, event.data.objectKey],
          );
        }
        // From now on the row names the verified copy; media verified before copies were made keep their key.
        await em.execute(`update media.media set status = 'ready', object_key = coalesce(?, object_key), version = ? where media_id = ?`, [
          event.data.objectKey ?? null,
          v,
          event.data.mediaId,
        ]);
        break;
      case 'MediaUploadRejected':
        await em.execute(`update media.media set status = 'invalid', rejection_reason = ?, version = ? where media_id = ?`, [
          event.data.reason,
          v,
          event.data.mediaId,
        ]);
        break;
      case 'MediaDiscarded':
        await em.execute(`delete from media.media where media_id = ?`, [event.data.mediaId]);
        break;
    }
  }
}
