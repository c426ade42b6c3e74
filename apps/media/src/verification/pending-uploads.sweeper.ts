import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { LAPSED_UPLOAD_RETENTION_MS } from '#platform/contracts';
import { handleCommand } from '#platform/event-store';
import { BackgroundJob, ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { mediaDecider } from '../media/media.decider';
import { projectMediaEvents } from '../media/media.projection';
import type { MediaRow } from '../media/media.records';
import { UploadVerification } from './upload-verification.service';

const EVERY_MS = 60 * 1000;
const BATCH = 100;
/** Upload URLs expire by S3's clock: a few minutes of slack cover its skew with the platform clock. */
const S3_CLOCK_SLACK_MS = 5 * 60 * 1000;
const COLUMNS = `media_id, app_id, source, kind, mime_type, file_name, size, object_key, status, created_at`;

/**
 * D12 and D13 in the background: pending uploads whose window is open (or just closed) are checked,
 * so media becomes ready without anyone asking; 24 h after a window lapsed without an upload, the
 * record and any object go; verified media's upload keys go once their window closed. Runs every
 * minute and whenever the test clock jumps.
 */
@Injectable()
export class PendingUploadsSweeper implements OnModuleInit, OnApplicationShutdown {
  private readonly job = new BackgroundJob('sweeping pending uploads', () => this.sweepOnce());

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(MediaBucket) private readonly bucket: MediaBucket,
    @Inject(UploadVerification) private readonly verification: UploadVerification,
  ) {}

  onModuleInit(): void {
    this.job.start(EVERY_MS, this.runtime.clock);
  }

  onApplicationShutdown(): void {
    this.job.stop();
  }

  sweep(): Promise<void> {
    return this.job.run();
  }

  private async sweepOnce(): Promise<void> {
    const now = this.runtime.clock.now();
    // Uploads can only arrive while the URL works.
    let after: { at: Date; id: string } = { at: new Date(now.getTime() - S3_CLOCK_SLACK_MS), id: '' };
    for (;;) {
      const open: (MediaRow & { upload_expires_at: Date | string })[] = await this.runtime.em().execute(
        `select ${COLUMNS}, upload_expires_at from media.media where status = 'pending_upload' and (upload_expires_at, media_id) > (?, ?)
           order by upload_expires_at, media_id limit ?`,
        [after.at, after.id, BATCH],
      );
      for (const row of open) await this.verification.verify(row, null);
      if (open.length < BATCH) break;
      const last = open[open.length - 1];
      after = { at: new Date(last.upload_expires_at), id: last.media_id };
    }

    for (;;) {
      const lapsed: MediaRow[] = await this.runtime
        .em()
        .execute(`select ${COLUMNS} from media.media where status = 'pending_upload' and upload_expires_at <= ? order by upload_expires_at limit ?`, [
          new Date(now.getTime() - LAPSED_UPLOAD_RETENTION_MS),
          BATCH,
        ]);
      let discarded = 0;
      for (const row of lapsed) if (await this.discard(row, now)) discarded++;
      // Rows that turned out uploaded leave the query; a batch that discarded nothing would repeat.
      if (lapsed.length < BATCH || discarded === 0) break;
    }

    await this.removeUploadLeftovers(now);
  }

  /**
   * Verified media are served from their copy (ADR 0210); their upload keys go once the URL can no
   * longer write them, also when a PUT after verification stored them again.
   */
  private async removeUploadLeftovers(now: Date): Promise<void> {
    for (;;) {
      const leftovers: { object_key: string }[] = await this.runtime
        .em()
        .execute(`select object_key from media.upload_leftovers where removable_at <= ? order by removable_at limit ?`, [
          new Date(now.getTime() - S3_CLOCK_SLACK_MS),
          BATCH,
        ]);
      for (const { object_key } of leftovers) {
        await this.bucket.delete(object_key);
        await this.runtime.em().execute(`delete from media.upload_leftovers where object_key = ?`, [object_key]);
      }
      if (leftovers.length < BATCH) break;
    }
  }

  private async discard(row: MediaRow, now: Date): Promise<boolean> {
    // A late upload may still be there (or arrive while we look): check once more before letting go.
    if ((await this.verification.verify(row, null)).status !== 'pending_upload') return false;
    await handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: mediaDecider,
      streamId: `media-${row.media_id}`,
      command: { type: 'DiscardLapsedUpload', data: {}, metadata: { now } },
      meta: { now, appId: row.app_id, correlationId: null, causationId: null, idSeed: `discard:${row.media_id}` },
      project: (tx, stored) => projectMediaEvents(tx, stored),
    });
    await this.bucket.delete(row.object_key);
    return true;
  }
}
