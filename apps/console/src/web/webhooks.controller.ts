import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ERROR_CODES, PUBLIC_EVENT_TYPES, type PublicEventType, type WebhookDeliveryStatus } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { RpcClient } from '#platform/kafka';
import type { ConsoleSession } from '../sessions/session-store';
import { ConsoleWeb } from './console-web';
import { html, type SafeHtml } from './html';
import { page, type Viewer } from './layout';

const SUBSCRIBABLE = PUBLIC_EVENT_TYPES.filter((type) => type !== 'webhook.test');
const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed'];

/**
 * An app's webhook endpoints and deliveries. Every change goes to the webhook dispatcher over RPC,
 * the same operations the public API calls, so the same rules (URL checks, handshake, limits) and
 * the same errors apply; refusals are shown in words.
 */
@Controller()
export class WebhooksController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
  ) {}

  @Get('/apps/:appId/webhooks')
  async list(@Param('appId') appId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.web.memberSession(req, res, appId);
    if (!session) return;
    const viewer = this.web.viewer(session);
    const { data: endpoints } = await this.rpc.call('webhooks', 'endpoints.list', this.web.rpcCaller(appId), { appId });
    this.web.send(res, 200, page('Webhook endpoints', this.endpointsPage(appId, viewer, endpoints), viewer));
  }

  @Post('/apps/:appId/webhooks')
  async add(@Param('appId') appId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.change(req, res, appId);
    if (!session) return;
    const events = ([] as string[]).concat(req.body?.events ?? []).filter((e): e is PublicEventType => (SUBSCRIBABLE as readonly string[]).includes(e));
    await this.attempt(res, this.web.viewer(session), appId, async () => {
      const created = await this.rpc.call('webhooks', 'endpoints.create', this.web.rpcCaller(appId), {
        appId,
        url: String(req.body?.url ?? '').trim(),
        verifyToken: String(req.body?.verifyToken ?? ''),
        events,
      });
      // The signing secret is shown this once, as the API shows it once.
      this.web.send(
        res,
        201,
        page(
          'Endpoint added',
          html`<p class="notice" role="status">${created.url} was added (${created.state}).</p>
            <label for="secret">Signing secret (shown once: copy it now)</label>
            <input id="secret" type="text" readonly value="${created.secret}" />
            <p><a href="/apps/${appId}/webhooks">Back to the endpoints</a></p>`,
          this.web.viewer(session),
        ),
      );
    });
  }

  @Post('/apps/:appId/webhooks/:endpointId/test')
  async test(@Param('appId') appId: string, @Param('endpointId') endpointId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.change(req, res, appId);
    if (!session) return;
    await this.attempt(res, this.web.viewer(session), appId, async () => {
      await this.rpc.call('webhooks', 'endpoints.test', this.web.rpcCaller(appId), { appId, endpointId });
      this.web.redirect(res, `/apps/${appId}/webhook-deliveries?endpoint=${encodeURIComponent(endpointId)}`);
    });
  }

  @Post('/apps/:appId/webhooks/:endpointId/delete')
  async remove(@Param('appId') appId: string, @Param('endpointId') endpointId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.change(req, res, appId);
    if (!session) return;
    await this.attempt(res, this.web.viewer(session), appId, async () => {
      await this.rpc.call('webhooks', 'endpoints.delete', this.web.rpcCaller(appId), { appId, endpointId });
      this.web.redirect(res, `/apps/${appId}/webhooks`);
    });
  }

  @Get('/apps/:appId/webhook-deliveries')
  async deliveries(
    @Param('appId') appId: string,
    @Query('status') rawStatus: string | undefined,
    @Query('endpoint') rawEndpoint: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const session = await this.web.memberSession(req, res, appId);
    if (!session) return;
    const viewer = this.web.viewer(session);
    const status = DELIVERY_STATUSES.find((s) => s === rawStatus) ?? null;
    const subscriptionId = rawEndpoint && /^we_[A-Za-z0-9]+$/.test(rawEndpoint) ? rawEndpoint : null;
    const pageOf = await this.rpc.call('webhooks', 'deliveries.list', this.web.rpcCaller(appId), { appId, status, subscriptionId, limit: 50, cursor: null });
    this.web.send(
      res,
      200,
      page(
        'Webhook deliveries',
        html`<p><a href="/apps/${appId}/webhooks">Endpoints</a></p>
          <form method="get" action="/apps/${appId}/webhook-deliveries">
            <label for="status">Status</label>
            <select id="status" name="status">
              <option value="">any</option>
              ${DELIVERY_STATUSES.map((s) => html`<option value="${s}" ${s === status ? html`selected` : null}>${s}</option>`)}
            </select>
            ${subscriptionId ? html`<input type="hidden" name="endpoint" value="${subscriptionId}" />` : null}
            <button type="submit">Filter</button>
          </form>
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
                    <td>${d.id}<br /><small>${d.createdAt}</small></td>
                    <td>${d.eventType}</td>
                    <td>${d.status}</td>
                    <td>${d.attempts}${d.lastAttemptAt ? html`<br /><small>last ${d.lastAttemptAt}</small>` : null}</td>
                    <td>${d.lastResponseStatus ?? ''} ${d.lastError ?? ''}</td>
                    <td>
                      ${
                        d.status === 'pending'
                          ? null
                          : html`<form class="inline" method="post" action="/apps/${appId}/webhook-deliveries/${d.id}/replay">
                              <input type="hidden" name="csrf" value="${viewer.csrfToken}" />
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

  @Post('/apps/:appId/webhook-deliveries/:deliveryId/replay')
  async replay(@Param('appId') appId: string, @Param('deliveryId') deliveryId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.change(req, res, appId);
    if (!session) return;
    await this.attempt(res, this.web.viewer(session), appId, async () => {
      await this.rpc.call('webhooks', 'deliveries.replay', this.web.rpcCaller(appId), { appId, deliveryId });
      this.web.redirect(res, `/apps/${appId}/webhook-deliveries`);
    });
  }

  private endpointsPage(
    appId: string,
    viewer: Viewer,
    endpoints: Array<{ id: string; url: string; state: string; events: string[]; disabledAt: string | null; lastVerificationError: string | null }>,
  ): SafeHtml {
    return html`<p><a href="/apps/${appId}">Back to the app</a> · <a href="/apps/${appId}/webhook-deliveries">Deliveries</a></p>
      <table>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">State</th>
            <th scope="col">Events</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${endpoints.map(
            (e) =>
              html`<tr>
                <td>${e.url}<br /><small>${e.id}</small></td>
                <td>
                  ${e.state}${e.disabledAt ? html`<br /><small>disabled ${e.disabledAt}: every delivery failed for 3 days</small>` : null}${e.lastVerificationError ? html`<br /><small>${e.lastVerificationError}</small>` : null}
                </td>
                <td>${e.events.join(', ')}</td>
                <td>
                  <form class="inline" method="post" action="/apps/${appId}/webhooks/${e.id}/test">
                    <input type="hidden" name="csrf" value="${viewer.csrfToken}" />
                    <button type="submit" aria-label="Send a test event to ${e.url}">Send test</button>
                  </form>
                  <form class="inline" method="post" action="/apps/${appId}/webhooks/${e.id}/delete">
                    <input type="hidden" name="csrf" value="${viewer.csrfToken}" />
                    <button type="submit" aria-label="Delete ${e.url}">Delete</button>
                  </form>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Add an endpoint</h2>
      <form method="post" action="/apps/${appId}/webhooks">
        <input type="hidden" name="csrf" value="${viewer.csrfToken}" />
        <label for="url">Endpoint URL</label>
        <input id="url" name="url" type="text" inputmode="url" required placeholder="https://example.com/webhooks" />
        <label for="verify-token">Verify token</label>
        <input id="verify-token" name="verifyToken" type="text" required />
        <fieldset>
          <legend>Events</legend>
          ${SUBSCRIBABLE.map((type) => html`<label><input type="checkbox" name="events" value="${type}" checked /> ${type}</label>`)}
        </fieldset>
        <button type="submit">Add endpoint</button>
      </form>`;
  }

  /** As memberSession(), for a change: the session's CSRF token must come with it. */
  private async change(req: Request, res: Response, appId: string): Promise<ConsoleSession | null> {
    const session = await this.web.memberSession(req, res, appId);
    if (session && !this.web.sessionTokenMatches(req, session)) {
      this.web.refuseCsrf(res, this.web.viewer(session));
      return null;
    }
    return session;
  }

  /** Runs a change; a refusal of the dispatcher becomes a page with its status and its words. */
  private async attempt(res: Response, viewer: Viewer, appId: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (!isDomainError(error)) throw error;
      const refusal = error;
      const status = ERROR_CODES[refusal.code].status;
      this.web.send(
        res,
        status,
        page(
          'Webhook endpoints',
          html`<p class="notice" role="alert">${refusal.message}</p>
            <p><a href="/apps/${appId}/webhooks">Back to the endpoints</a></p>`,
          viewer,
        ),
      );
    }
  }
}
