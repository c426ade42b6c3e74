import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { log, ServiceRuntime } from '@platform/service-kit';
import { CURSOR_LIFETIME_MS } from './consent-cursor';

const EVERY_MS = 10 * 60 * 1000;

/**
 * Superseded listing versions matter only to cursors that may still be used; drop them once every
 * such cursor has expired (an hour of slack on top of the cursor lifetime), by the platform clock.
 */
@Injectable()
export class ConsentVersionsPruner implements OnModuleInit, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(ServiceRuntime) private readonly runtime: ServiceRuntime) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.prune(), EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async prune(): Promise<number> {
    try {
      const cutoff = new Date(this.runtime.clock.nowMs() - CURSOR_LIFETIME_MS - 3600 * 1000);
      const deleted: unknown[] = await this.runtime.em().execute(`delete from consent.consent_versions where superseded_at < ? returning 1`, [cutoff]);
      return deleted.length;
    } catch (error) {
      log('error', 'pruning consent versions failed', { error: String(error) });
      return 0;
    }
  }
}
