import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { DeliveryDayCount, EndpointHealthSummary } from '#platform/contracts';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { ServiceRuntime, utcDayRange } from '#platform/service-kit';
import { countsPerDay, endpointHealth, hourOf } from './delivery-counts.rule';
import { appHoursStatement, appOutcomesPerHourStatement, hourCounts, type HourCountsRow } from './delivery-counts.sql';

const HOUR_MS = 3_600_000;
/** The longest range of days one call reads (the console asks for 30). */
const MAX_DAYS = 92;

/** The console's delivery charts and endpoint health, read from the hourly delivery counts (ADR 0219). */
@Injectable()
export class DeliveryCountsHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'webhooks'>,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'deliveries.dailyCounts': (p) => this.dailyCounts(String(p.appId), String(p.fromDay), String(p.toDay)),
      'endpoints.health': (p) => this.health(String(p.appId)),
    });
  }

  async dailyCounts(appId: string, fromDay: string, toDay: string): Promise<{ data: DeliveryDayCount[] }> {
    const { from, to } = utcDayRange(fromDay, toDay, MAX_DAYS);
    const rows = await runStatement<{ hour: Date; delivered: number; delivered_first_attempt: number; failed: number }>(
      this.runtime.em(),
      appOutcomesPerHourStatement(appId, from, new Date(to.getTime() + 24 * HOUR_MS)),
    );
    return {
      data: countsPerDay(
        rows.map((r) => ({ hour: new Date(r.hour).toISOString(), delivered: r.delivered, deliveredFirstAttempt: r.delivered_first_attempt, failed: r.failed })),
      ),
    };
  }

  /** The current UTC hour and the 23 before it, by the platform clock. */
  async health(appId: string): Promise<{ data: EndpointHealthSummary[] }> {
    const thisHour = Date.parse(hourOf(this.runtime.clock.now()));
    const rows = await runStatement<HourCountsRow>(
      this.runtime.em(),
      appHoursStatement(appId, new Date(thisHour - 23 * HOUR_MS), new Date(thisHour + HOUR_MS)),
    );
    return { data: endpointHealth(rows.map(hourCounts)) };
  }
}
