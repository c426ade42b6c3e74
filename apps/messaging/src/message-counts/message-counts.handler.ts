import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { MessageDayCount } from '#platform/contracts';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { ServiceRuntime, utcDayRange } from '#platform/service-kit';
import { dayCountsStatement } from './message-counts.sql';

/** The longest range of days one call reads (the console asks for 30). */
const MAX_DAYS = 92;

/** An app's messages per UTC day by status (ADR 0218), for the console's overview. */
@Injectable()
export class MessageCountsHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'messaging'>,
  ) {}

  onModuleInit(): void {
    this.rpc.register('apps.messageCounts', (p) => this.counts(String(p.appId), String(p.fromDay), String(p.toDay)));
  }

  async counts(appId: string, fromDay: string, toDay: string): Promise<{ data: MessageDayCount[] }> {
    utcDayRange(fromDay, toDay, MAX_DAYS);
    const rows = await runStatement<MessageDayCount>(this.runtime.em(), dayCountsStatement(appId, fromDay, toDay));
    return { data: rows.map((r) => ({ day: r.day, sent: Number(r.sent), delivered: Number(r.delivered), read: Number(r.read), failed: Number(r.failed) })) };
  }
}
