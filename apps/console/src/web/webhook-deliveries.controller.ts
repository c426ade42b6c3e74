import { Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { WebhookDeliveryStatus } from '#platform/contracts';
import { RpcClient } from '#platform/kafka';
import { AuditTrail } from '../audit/audit-trail';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { deliveryDetailPage } from './delivery-detail-page';
import { html } from './html';
import { changeAction, page } from './layout';
import { readableTime } from './readable-time';
import { statusFilter } from './status-filter';

const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** An app's webhook deliveries: the log (by status and endpoint), each delivery's detail, and replay, through the dispatcher's RPC. */
@Controller()
export class WebhookDeliveriesController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
    private readonly audit: AuditTrail,
  ) {}

  @Get('/apps/:appId/webhook-deliveries')
  async deliveries(
    @Param('appId') appId: string,
    @Query('status') rawStatus: string | undefined,
    @Query('endpoint') rawEndpoint: string | undefined,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    const status = DELIVERY_STATUSES.find((s) => s === rawStatus) ?? null;
    const subscriptionId = rawEndpoint && /^we_[A-Za-z0-9]+$/.test(rawEndpoint) ? rawEndpoint : null;
    const now = this.web.runtime.clock.now();
    const pageOf = await this.rpc.call('webhooks', 'deliveries.list', this.web.rpcCaller(appId), { appId, status, subscriptionId, limit: 50, cursor: null });
    this.web.send(
      res,
      200,
      page(
        'Webhook deliveries',
        html`<p><a href="/apps/${appId}/webhooks">Endpoints</a></p>
          ${statusFilter({ action: `/apps/${appId}/webhook-deliveries`, id: 'status', statuses: DELIVERY_STATUSES, current: status, hidden: { endpoint: subscriptionId } })}
          <table>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              ${pageOf.data.map(
                (d) =>
                  html`<tr>
                    <td data-label="Delivery">
                      <a href="/apps/${appId}/webhook-deliveries/${d.id}">${d.id}</a><br /><small>${readableTime(d.createdAt, now)}</small>
                    </td>
                    <td data-label="Event">${d.eventType}</td>
                    <td data-label="Status">${d.status}</td>
                    <td data-label="Attempts">
                      ${d.attempts}${d.lastAttemptAt ? html`<br /><small>last ${readableTime(d.lastAttemptAt, now)}</small>` : null}
                    </td>
                    <td data-label="Last answer">${d.lastResponseStatus ?? ''} ${d.lastError ?? ''}</td>
                    <td data-label="Actions">
                      ${
                        d.status === 'pending'
                          ? null
                          : html`<form
                              class="inline"
                              method="post"
                              action="${changeAction(`/apps/${appId}/webhook-deliveries/${d.id}/replay`, viewer.csrfToken)}"
                            >
                              <button type="submit" aria-label="Replay ${d.id}">Replay</button>
                            </form>`
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        viewer,
      ),
    );
  }

  @Get('/apps/:appId/webhook-deliveries/:deliveryId')
  async detail(
    @Param('appId') appId: string,
    @Param('deliveryId') deliveryId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    // A delivery of another app, or none: the dispatcher answers not_found, shown as the 404 page.
    const detail = await this.rpc.call('webhooks', 'deliveries.attempts', this.web.rpcCaller(appId), { appId, deliveryId });
    this.web.send(res, 200, page(`Delivery ${deliveryId}`, deliveryDetailPage(appId, detail, this.web.runtime.clock.now()), viewer));
  }

  @Post('/apps/:appId/webhook-deliveries/:deliveryId/replay')
  async replay(
    @Param('appId') appId: string,
    @Param('deliveryId') deliveryId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    await this.audit.change(
      appId,
      viewer.email,
      'delivery.replayed',
      (caller) => this.rpc.call('webhooks', 'deliveries.replay', caller, { appId, deliveryId }),
      () => deliveryId,
    );
    this.web.redirect(res, `/apps/${appId}/webhook-deliveries`);
  }
}
