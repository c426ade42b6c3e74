import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { BackgroundJob, ServiceRuntime } from '#platform/service-kit';
import { CURSOR_LIFETIME_MS } from './consent-cursor';

const EVERY_MS = 10 * 60 * 1000;

/**
 * Superseded listing versions matter only to cursors that may still be used; drop them once every
 * such cursor has expired (an hour of slack on top of the cursor lifetime), by the platform clock.
 */
@Injectable()
export class ConsentVersionsPruner implements OnModuleInit, OnApplicationShutdown {
  private readonly job = new BackgroundJob('pruning consent versions', async () => void (await this.prune()));

  constructor(@Inject(ServiceRuntime) private readonly runtime: ServiceRuntime) {}

  onModuleInit(): void {
    this.job.start(EVERY_MS, this.runtime.clock);
  }

  onApplicationShutdown(): void {
    this.job.stop();
  }

  /** Deletes what no cursor can reach any more; answers how many versions went. */
  async prune(): Promise<number> {
    const cutoff = new Date(this.runtime.clock.nowMs() - CURSOR_LIFETIME_MS - 3600 * 1000);
    const deleted: unknown[] = await this.runtime.em().execute(`delete from consent.consent_versions where superseded_at < ? returning 1`, [cutoff]);
    return deleted.length;
  }
}
