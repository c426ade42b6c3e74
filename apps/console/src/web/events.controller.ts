import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RpcClient } from '#platform/kafka';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { eventsPage, eventTypeFilter } from './events-page';
import { page } from './layout';

const PAGE_SIZE = 50;

/** An app's events of the last 30 days (GET /events' operation, ADR 0223), for its members (AppMemberGuard). */
@Controller()
export class EventsController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
  ) {}

  @Get('/apps/:appId/events')
  async list(
    @Param('appId') appId: string,
    @Query() query: Record<string, unknown>,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    const type = eventTypeFilter(query.type);
    const cursor = typeof query.cursor === 'string' && query.cursor !== '' ? query.cursor : null;
    // A cursor the dispatcher did not make is a 400 page, by DomainErrorPageFilter.
    const events = await this.rpc.call('webhooks', 'events.list', this.web.rpcCaller(appId), {
      appId,
      type,
      createdAfter: null,
      createdBefore: null,
      limit: PAGE_SIZE,
      cursor,
    });
    this.web.send(res, 200, page('Events', eventsPage(appId, type, events.data, events.nextCursor, this.web.runtime.clock.now()), viewer));
  }
}
