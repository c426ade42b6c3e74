import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EventRef, MediaForUse, MediaResource, RpcCaller } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { findMedia, publicMedia } from '../media/media.records';
import { UploadVerification } from '../verification/upload-verification.service';
import { mediaEventsStatement } from './get-media.sql';

/**
 * GET /media/{id} (checks a pending upload first, D12) and `media.prepare`: the check on first use.
 * prepare answers with the media's events so the gateway can wait until the user of the media
 * (messaging's projection) has them before it decides.
 */
@Injectable()
export class GetMediaHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'media'>,
    @Inject(MediaBucket) private readonly bucket: MediaBucket,
    @Inject(UploadVerification) private readonly verification: UploadVerification,
  ) {}

  onModuleInit(): void {
    this.rpc.register('media.get', (p, caller) => this.get(p.appId, p.mediaId, caller));
    this.rpc.register('media.prepare', (p, caller) => this.prepare(p.appId, p.mediaId, caller));
  }

  async get(appId: string, mediaId: string, caller: RpcCaller): Promise<MediaResource> {
    const row = await findMedia(this.runtime.em(), appId, String(mediaId));
    if (!row) throw new DomainError('not_found', 'No such media for this app.');
    return publicMedia(await this.verification.verify(row, caller.requestId ?? null), this.bucket, this.runtime.clock);
  }

  async prepare(appId: string, mediaId: string, caller: RpcCaller): Promise<MediaForUse> {
    const found = await findMedia(this.runtime.em(), appId, String(mediaId));
    if (!found) return { found: false, events: [] };
    // After the check the row names the key the file is served from (for a verified upload, its copy).
    const row = await this.verification.verify(found, caller.requestId ?? null);
    const events = await runStatement<EventRef>(this.runtime.em(), mediaEventsStatement(row.media_id));
    return {
      found: true,
      source: row.source,
      kind: row.kind,
      status: row.status,
      mimeType: row.mime_type,
      fileName: row.file_name,
      size: Number(row.size),
      objectKey: row.object_key,
      events,
    };
  }
}
