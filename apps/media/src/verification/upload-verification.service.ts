import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { handleCommand } from '#platform/event-store';
import { log, ServiceRuntime } from '#platform/service-kit';
import { MediaBucket } from '#platform/storage';
import { mediaDecider } from '../media/media.decider';
import { verifiedObjectKey } from '../media/media.object-keys';
import { projectMediaEvents } from '../media/media.projection';
import { findMedia, type MediaRow } from '../media/media.records';
import type { MediaState } from '../media/media.state';
import { judgeUpload, SNIFF_BYTES } from './upload-verifier';

/**
 * D12: an upload is checked on first use, on GET /media and by a sweeper. The upload is first copied
 * (server-side) to a key of its own that no upload URL can write; that copy is what is judged, and a
 * match is served and delivered from it, so a later PUT to the still-valid upload URL changes nothing
 * that is served. Size from HEAD, content from the first bytes only (a ranged GET), so a 100 MiB file
 * never passes through this process.
 */
@Injectable()
export class UploadVerification {
  /** Checks under way in this process, by media: callers at the same moment share one copy and one verdict. */
  private readonly running = new Map<string, Promise<MediaRow>>();

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(MediaBucket) private readonly bucket: MediaBucket,
  ) {}

  /** The row after a check: its status (still `pending_upload` while nothing is stored) and the key it is served from. */
  async verify(row: MediaRow, correlationId: string | null): Promise<MediaRow> {
    if (row.status !== 'pending_upload') return row;
    const running = this.running.get(row.media_id);
    if (running) return running;
    const check = this.check(row, correlationId).finally(() => this.running.delete(row.media_id));
    this.running.set(row.media_id, check);
    return check;
  }

  private async check(row: MediaRow, correlationId: string | null): Promise<MediaRow> {
    const copyKey = verifiedObjectKey(row.app_id, row.media_id, randomUUID());
    // Nothing uploaded yet, or another check (another replica) verified it and removed the upload.
    if (!(await this.bucket.copy(row.object_key, copyKey))) return (await findMedia(this.runtime.em(), row.app_id, row.media_id)) ?? row;

    let recording = false;
    let state: MediaState;
    try {
      const storedSize = await this.bucket.size(copyKey);
      if (storedSize === null) throw new Error(`the copy ${copyKey} of ${row.object_key} is missing`);
      const head = storedSize === 0 ? Buffer.alloc(0) : await this.bucket.readStart(copyKey, Math.min(SNIFF_BYTES, storedSize));
      const verdict = await judgeUpload({ declaredMimeType: row.mime_type, declaredSize: Number(row.size), storedSize, head });
      const now = this.runtime.clock.now();
      recording = true;
      ({ state } = await handleCommand({
        em: this.runtime.em(),
        eventStore: this.runtime.eventStore,
        decider: mediaDecider,
        streamId: `media-${row.media_id}`,
        command: {
          type: 'RecordUploadVerdict',
          data: { verdict: verdict.ok ? { ok: true, size: storedSize, objectKey: copyKey } : verdict },
          metadata: { now },
        },
        meta: { now, appId: row.app_id, correlationId, causationId: correlationId },
        project: (tx, stored) => projectMediaEvents(tx, stored),
      }));
    } catch (error) {
      // Only before the verdict is recorded is the copy surely unused: a commit that failed may still have committed.
      if (!recording) await this.forget(copyKey, 'an unused verification copy');
      throw error;
    }

    if (state.status === 'ready' && state.file.objectKey === copyKey) {
      // Served from the copy now: the upload is no longer needed (what a later PUT stores, the sweeper removes).
      await this.forget(row.object_key, 'a verified upload');
      return { ...row, status: 'ready', object_key: copyKey };
    }
    // Rejected, or another check's verdict came first: this copy serves nothing.
    await this.forget(copyKey, 'an unused verification copy');
    if (state.status === 'ready' || state.status === 'invalid') return { ...row, status: state.status, object_key: state.file.objectKey };
    return row;
  }

  /** Best effort: a leftover object costs storage, never correctness, so a failed delete does not fail the check. */
  private async forget(key: string, what: string): Promise<void> {
    try {
      await this.bucket.delete(key);
    } catch (error) {
      log('warn', `could not delete ${what}`, { objectKey: key, error: String((error as Error)?.message ?? error) });
    }
  }
}
