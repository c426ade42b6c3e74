import { Inject, Injectable } from '@nestjs/common';
import { handleCommand } from '#platform/event-store';
import { ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { mediaDecider } from '../media/media.decider';
import { projectMediaEvents } from '../media/media.projection';
import type { MediaRow } from '../media/media.records';
import { judgeUpload, SNIFF_BYTES } from './upload-verifier';

/**
 * D12: an upload is checked on first use, on GET /media and by a sweeper. Size from HEAD, content
 * from the first bytes only (a ranged GET), so a 100 MiB file never passes through this process.
 */
@Injectable()
export class UploadVerification {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(MediaBucket) private readonly bucket: MediaBucket,
  ) {}

  /** The media's status after a check; still `pending_upload` while nothing is stored. */
  async verify(row: MediaRow, correlationId: string | null): Promise<MediaRow['status']> {
    if (row.status !== 'pending_upload') return row.status;
    const storedSize = await this.bucket.size(row.object_key);
    if (storedSize === null) return 'pending_upload';
    const head = storedSize === 0 ? Buffer.alloc(0) : await this.bucket.readStart(row.object_key, Math.min(SNIFF_BYTES, storedSize));
    const verdict = await judgeUpload({ declaredMimeType: row.mime_type, declaredSize: Number(row.size), storedSize, head });
    const now = this.runtime.clock.now();
    const { state } = await handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: mediaDecider,
      streamId: `media-${row.media_id}`,
      command: { type: 'RecordUploadVerdict', data: { verdict: verdict.ok ? { ok: true, size: storedSize } : verdict }, metadata: { now } },
      meta: { now, appId: row.app_id, correlationId, causationId: correlationId },
      project: (tx, stored) => projectMediaEvents(tx, stored),
    });
    return state.status === 'ready' || state.status === 'invalid' ? state.status : 'pending_upload';
  }
}
