import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { handleCommand, StreamVersionConflict } from '#platform/event-store';
import { isDomainError } from '#platform/errors';
import { BackgroundJob, ServiceRuntime } from '#platform/service-kit';
import { MESSAGE_DELIVERY_DEADLINE_MS, messageDecider } from '../messages/message.decider';
import { projectMessageEvents } from '../messages/message.projection';

const EVERY_MS = 60 * 1000;
const BATCH = 200;

interface DueRow {
  message_id: string;
  app_id: string;
  created_at: Date | string;
}

/**
 * D4: a message handed to the chat product and not delivered within 30 days fails as
 * `expired`. Runs every minute and whenever the test clock jumps (BackgroundJob). The decider has the last word, so
 * a receipt that lands between the query and the command wins, and two replicas sweeping at once
 * only conflict on the stream version, never fail a message twice.
 */
@Injectable()
export class MessageExpirySweeper implements OnModuleInit, OnApplicationShutdown {
  private readonly job = new BackgroundJob('expiring undelivered messages', () => this.sweepOnce());

  constructor(@Inject(ServiceRuntime) private readonly runtime: ServiceRuntime) {}

  onModuleInit(): void {
    this.job.start(EVERY_MS, this.runtime.clock);
  }

  onApplicationShutdown(): void {
    this.job.stop();
  }

  /** Expires every overdue message. */
  sweep(): Promise<void> {
    return this.job.run();
  }

  private async sweepOnce(): Promise<void> {
    for (;;) {
      const expired = await this.sweepBatch();
      // A batch that expired nothing would only come round to the same rows again.
      if (expired.seen < BATCH || expired.count === 0) break;
    }
  }

  private async sweepBatch(): Promise<{ seen: number; count: number }> {
    const now = this.runtime.clock.now();
    const due: DueRow[] = await this.runtime.em().execute(
      `select message_id, app_id, created_at from messaging.messages
       where direction = 'outbound' and status = 'sent' and created_at <= ? order by created_at limit ?`,
      [new Date(now.getTime() - MESSAGE_DELIVERY_DEADLINE_MS), BATCH],
    );
    let count = 0;
    for (const row of due) {
      try {
        const { events } = await handleCommand({
          em: this.runtime.em(),
          eventStore: this.runtime.eventStore,
          decider: messageDecider,
          streamId: `message-${row.message_id}`,
          command: { type: 'ExpireMessage', data: { handedOverAt: new Date(row.created_at).toISOString() }, metadata: { now } },
          // Same message, same deadline: a second replica mints the same event id and loses on the version.
          meta: { now, appId: row.app_id, correlationId: null, causationId: null, idSeed: `expire:${row.message_id}` },
          project: (tx, stored) => projectMessageEvents(tx, stored),
          maxRetries: 1,
        });
        count += events.length;
      } catch (error) {
        if (!isDomainError(error) && !(error instanceof StreamVersionConflict)) throw error;
      }
    }
    return { seen: due.length, count };
  }
}
