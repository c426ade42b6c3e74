import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { ServiceRuntime } from '#platform/service-kit';
import { utcDay } from '../messages/send-rules';
import { dailyCountStatement } from './quota-usage.sql';

/** How much of today's quota (D8, days in UTC) an app has used: the count the send path keeps. */
@Injectable()
export class QuotaUsageHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'messaging'>,
  ) {}

  onModuleInit(): void {
    this.rpc.register('apps.quotaUsed', (p) => this.today(p.appId));
  }

  async today(appId: string): Promise<{ day: string; accepted: number }> {
    const day = utcDay(this.runtime.clock.now());
    const [row] = await runStatement<{ accepted: number }>(this.runtime.em(), dailyCountStatement(appId, day));
    return { day, accepted: Number(row?.accepted ?? 0) };
  }
}
