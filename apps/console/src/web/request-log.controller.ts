import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RpcClient } from '#platform/kafka';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { page } from './layout';
import { requestDetailPage, requestLogFilters, requestLogPage } from './request-log-page';

const PAGE_SIZE = 50;

/**
 * An app's request log, as the gateway recorded it (docs/adr/0216-request-log-off-the-request-path.md):
 * the list with its filters and one request with its error envelope, through the gateway's
 * requests.* RPC, always for the app of the path (AppMemberGuard checked the membership).
 */
@Controller()
export class RequestLogController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
  ) {}

  @Get('/apps/:appId/requests')
  async list(
    @Param('appId') appId: string,
    @Query() query: Record<string, unknown>,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    const filters = requestLogFilters(query);
    const cursor = typeof query.cursor === 'string' && query.cursor !== '' ? query.cursor : null;
    // A filter the gateway refuses (a malformed key prefix, a cursor it did not make) is a 400 page, by DomainErrorPageFilter.
    const [requests, keys] = await Promise.all([
      this.rpc.call('gateway', 'requests.list', this.web.rpcCaller(appId), { appId, ...filters, limit: PAGE_SIZE, cursor }),
      this.rpc.call('gateway', 'keys.list', this.web.rpcCaller(appId), { appId }),
    ]);
    this.web.send(
      res,
      200,
      page('Request log', requestLogPage(appId, filters, keys.data, requests.data, requests.nextCursor, this.web.runtime.clock.now()), viewer),
    );
  }

  @Get('/apps/:appId/requests/:requestId')
  async detail(
    @Param('appId') appId: string,
    @Param('requestId') requestId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    // Another app's request, or none: the gateway answers not_found, shown as a 404 page.
    const entry = await this.rpc.call('gateway', 'requests.get', this.web.rpcCaller(appId), { appId, requestId });
    this.web.send(res, 200, page(`Request ${entry.requestId}`, requestDetailPage(appId, entry, this.web.runtime.clock.now()), viewer));
  }
}
