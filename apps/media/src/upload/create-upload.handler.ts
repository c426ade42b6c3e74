import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  ID_PREFIX,
  newId,
  UPLOAD_URL_TTL_SECONDS,
  type CreateMediaCall,
  type CreateMediaResponse,
  type MediaUploadRequested,
  type RpcCaller,
} from '#platform/contracts';
import { decideInTransaction } from '#platform/event-store';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { mediaDecider } from '../media/media.decider';
import { uploadObjectKey } from '../media/media.object-keys';
import { projectMediaEvents } from '../media/media.projection';
import { publicMedia, type MediaRow } from '../media/media.records';
import { uploadRateLockStatement, uploadsSinceStatement, type UploadCountRow } from './create-upload.sql';

const HOUR_MS = 3600 * 1000;

/**
 * POST /media: records the pending upload and hands out a presigned PUT that signs Content-Type and
 * Content-Length, so S3 itself refuses other bytes counts or types. The D14 count and the append run
 * under a per-app lock, so concurrent requests cannot slip past the hourly limit together.
 */
@Injectable()
export class CreateUploadHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'media'>,
    @Inject(MediaBucket) private readonly bucket: MediaBucket,
  ) {}

  onModuleInit(): void {
    this.rpc.register('media.create', (p, caller) => this.create(p, caller));
  }

  async create(request: CreateMediaCall, caller: RpcCaller): Promise<CreateMediaResponse> {
    const now = this.runtime.clock.now();
    const mediaId = newId(ID_PREFIX.media, now.getTime());
    const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_SECONDS * 1000);
    const objectKey = uploadObjectKey(request.appId, mediaId);
    const row = await this.runtime.em().transactional(async (tx) => {
      await runStatement(tx, uploadRateLockStatement(request.appId));
      const [{ count }] = await runStatement<UploadCountRow>(tx, uploadsSinceStatement(request.appId, new Date(now.getTime() - HOUR_MS)));
      const { events } = await decideInTransaction({
        em: tx,
        eventStore: this.runtime.eventStore,
        decider: mediaDecider,
        streamId: `media-${mediaId}`,
        command: {
          type: 'RequestUpload',
          data: {
            mediaId,
            mimeType: request.mimeType,
            fileName: request.fileName,
            size: request.size,
            objectKey,
            uploadExpiresAt: expiresAt.toISOString(),
            uploadsLastHour: Number(count),
          },
          metadata: { now },
        },
        meta: { now, appId: request.appId, correlationId: caller.requestId ?? null, causationId: caller.requestId ?? null },
        newStream: true,
        project: (projectTx, stored) => projectMediaEvents(projectTx, stored),
      });
      // The row just projected, without reading it back.
      const requested = events[0].data as MediaUploadRequested['data'];
      const created: MediaRow = {
        media_id: mediaId,
        app_id: request.appId,
        source: 'app',
        kind: requested.kind,
        mime_type: requested.mimeType,
        file_name: requested.fileName,
        size: requested.size,
        object_key: objectKey,
        status: 'pending_upload',
        created_at: now,
      };
      return created;
    });
    return {
      media: await publicMedia(row, this.bucket, this.runtime.clock),
      upload: {
        url: await this.bucket.presignUpload(objectKey, request.mimeType, request.size, UPLOAD_URL_TTL_SECONDS),
        method: 'PUT',
        headers: { 'Content-Type': request.mimeType, 'Content-Length': String(request.size) },
        expiresAt: expiresAt.toISOString(),
      },
    };
  }
}
