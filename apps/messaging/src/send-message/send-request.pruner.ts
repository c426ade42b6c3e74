import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { IDEMPOTENCY_KEY_TTL_MS } from '#platform/contracts';
import { retentionJob, ServiceRuntime, type BackgroundJob } from '#platform/service-kit';

const EVERY_MS = 10 * 60 * 1000;

/**
 * Deletes claims of Idempotency-Keys older than their 24 hours (`send_requests`), every ten
 * minutes and whenever the test clock jumps. An expired claim already counts for nothing (a new
 * request with its key takes it over); without this the table would keep every send forever.
 */
@Injectable()
export class SendRequestPruner implements OnModuleInit, OnApplicationShutdown {
  private readonly job: BackgroundJob;

  constructor(@Inject(ServiceRuntime) private readonly runtime: ServiceRuntime) {
    this.job = retentionJob({
      name: 'pruning expired Idempotency-Key claims',
      tables: [{ table: 'messaging.send_requests', column: 'created_at', keepMs: IDEMPOTENCY_KEY_TTL_MS }],
      em: () => runtime.em(),
      clock: runtime.clock,
      pruned: runtime.metrics.rowsPruned,
    });
  }

  onModuleInit(): void {
    this.job.start(EVERY_MS, this.runtime.clock);
  }

  onApplicationShutdown(): void {
    this.job.stop();
  }
}
