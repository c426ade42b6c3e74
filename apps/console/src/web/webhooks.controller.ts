import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ERROR_CODES, WEBHOOKS, type PublicEventType, type WebhookDeliveryStatus } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { RpcClient } from '#platform/kafka';
import type { ConsoleSession } from '../sessions/session-store';
import { ConsoleWeb } from './console-web';
import { html } from './html';
import { page, type Viewer } from './layout';
import { endpointsPage, SUBSCRIBABLE } from './webhook-pages';

const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed'];

/**
 * The public API's body rules for what the console sends (its DTOs check the same, from the same
 * constants): at least one event, and a verify token of 8-128 printable characters.
 */
function requestProblem(body: { events?: PublicEventType[]; verifyToken?: string }): string | null {
  if (body.events !== undefined && body.events.length === 0) return 'Choose at least one event.';
  if (body.verifyToken !== undefined && !WEBHOOKS.verifyTokenPattern.test(body.verifyToken)) return 'The verify token must be 8 to 128 printable characters.';
  return null;
}

/** The event types a form ticked (one value or several), those an endpoint may subscribe to only. */
const subscribedEvents = (value: unknown): PublicEventType[] =>
  ([] as unknown[]).concat(value ?? []).filter((e): e is PublicEventType => typeof e === 'string' && (SUBSCRIBABLE as readonly string[]).includes(e));

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
    const signedIn = await this.web.memberSession(req, res, appId);
    if (!signedIn) return;
    const viewer = this.web.viewer(signedIn);
    const { data: endpoints } = await this.rpc.call('webhooks', 'endpoints.list', this.web.rpcCaller(appId), { appId });
    this.web.send(res, 200, page('Webhook endpoints', endpointsPage(appId, viewer, endpoints), viewer));
  }

  @Post('/apps/:appId/webhooks')
  async add(@Param('appId') appId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.change(req, res, appId);
    if (!signedIn) return;
    const events = subscribedEvents(req.body?.events);
    const verifyToken = String(req.body?.verifyToken ?? '');
    const problem = requestProblem({ events, verifyToken });
    if (problem) return this.refuse(res, signedIn, appId, problem);
    await this.attempt(res, this.web.viewer(signedIn), appId, async () => {
      const created = await this.rpc.call('webhooks', 'endpoints.create', this.web.rpcCaller(appId), {
        appId,
        url: String(req.body?.url ?? '').trim(),
        verifyToken,
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
          this.web.viewer(signedIn),
        ),
      );
    });
  }

  @Post('/apps/:appId/webhooks/:endpointId/test')
  async test(@Param('appId') appId: string, @Param('endpointId') endpointId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.change(req, res, appId);
    if (!signedIn) return;
    await this.attempt(res, this.web.viewer(signedIn), appId, async () => {
      await this.rpc.call('webhooks', 'endpoints.test', this.web.rpcCaller(appId), { appId, endpointId });
      this.web.redirect(res, `/apps/${appId}/webhook-deliveries?endpoint=${encodeURIComponent(endpointId)}`);
    });
  }

  @Post('/apps/:appId/webhooks/:endpointId/verify')
  async verify(@Param('appId') appId: string, @Param('endpointId') endpointId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.change(req, res, appId);
    if (!signedIn) return;
    const verifyToken = String(req.body?.verifyToken ?? '');
    const problem = requestProblem({ verifyToken });
    if (problem) return this.refuse(res, signedIn, appId, problem);
    await this.attempt(res, this.web.viewer(signedIn), appId, async () => {
      await this.rpc.call('webhooks', 'endpoints.verify', this.web.rpcCaller(appId), { appId, endpointId, verifyToken });
      this.web.redirect(res, `/apps/${appId}/webhooks`);
    });
  }

  @Post('/apps/:appId/webhooks/:endpointId/rotate-secret')
  async rotate(@Param('appId') appId: string, @Param('endpointId') endpointId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.change(req, res, appId);
    if (!signedIn) return;
    await this.attempt(res, this.web.viewer(signedIn), appId, async () => {
      const rotated = await this.rpc.call('webhooks', 'endpoints.rotateSecret', this.web.rpcCaller(appId), { appId, endpointId });
      this.web.send(
        res,
        200,
        page(
          'Secret rotated',
          html`<label for="secret">New signing secret (shown once: copy it now)</label>
            <input id="secret" type="text" readonly value="${rotated.secret}" />
            <p>The previous secret keeps signing beside it until ${rotated.previousSecretExpiresAt}.</p>
            <p><a href="/apps/${appId}/webhooks">Back to the endpoints</a></p>`,
          this.web.viewer(signedIn),
        ),
      );
    });
  }

  @Post('/apps/:appId/webhooks/:endpointId/events')
  async changeEvents(@Param('appId') appId: string, @Param('endpointId') endpointId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.change(req, res, appId);
    if (!signedIn) return;
    const events = subscribedEvents(req.body?.events);
    const problem = requestProblem({ events });
    if (problem) return this.refuse(res, signedIn, appId, problem);
    await this.attempt(res, this.web.viewer(signedIn), appId, async () => {
      await this.rpc.call('webhooks', 'endpoints.update', this.web.rpcCaller(appId), { appId, endpointId, events });
      this.web.redirect(res, `/apps/${appId}/webhooks`);
    });
  }

  @Post('/apps/:appId/webhooks/:endpointId/delete')
  async remove(@Param('appId') appId: string, @Param('endpointId') endpointId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.change(req, res, appId);
    if (!signedIn) return;
    await this.attempt(res, this.web.viewer(signedIn), appId, async () => {
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
    const signedIn = await this.web.memberSession(req, res, appId);
    if (!signedIn) return;
    const viewer = this.web.viewer(signedIn);
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
                    <td><a href="/apps/${appId}/webhook-deliveries/${d.id}">${d.id}</a><br /><small>${d.createdAt}</small></td>
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

  @Get('/apps/:appId/webhook-deliveries/:deliveryId')
  async attempts(@Param('appId') appId: string, @Param('deliveryId') deliveryId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.web.memberSession(req, res, appId);
    if (!signedIn) return;
    // A delivery of another app, or none: the dispatcher answers not_found, shown as the 404 page.
    const { data } = await this.rpc.call('webhooks', 'deliveries.attempts', this.web.rpcCaller(appId), { appId, deliveryId });
    this.web.send(
      res,
      200,
      page(
        `Delivery ${deliveryId}`,
        html`<p><a href="/apps/${appId}/webhook-deliveries">All deliveries</a></p>
          <table>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Started</th>
                <th scope="col">Answer</th>
                <th scope="col">Duration</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              ${data.map(
                (a) =>
                  html`<tr>
                    <td>${a.attempt}</td>
                    <td>${a.startedAt}</td>
                    <td>${a.responseStatus ?? ''} ${a.error ?? ''}</td>
                    <td>${a.durationMs} ms</td>
                    <td>${a.outcome}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`,
        this.web.viewer(signedIn),
      ),
    );
  }

  @Post('/apps/:appId/webhook-deliveries/:deliveryId/replay')
  async replay(@Param('appId') appId: string, @Param('deliveryId') deliveryId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.change(req, res, appId);
    if (!signedIn) return;
    await this.attempt(res, this.web.viewer(signedIn), appId, async () => {
      await this.rpc.call('webhooks', 'deliveries.replay', this.web.rpcCaller(appId), { appId, deliveryId });
      this.web.redirect(res, `/apps/${appId}/webhook-deliveries`);
    });
  }

  /** As memberSession(), for a change: the session's CSRF token must come with it. */
  private async change(req: Request, res: Response, appId: string): Promise<ConsoleSession | null> {
    const signedIn = await this.web.memberSession(req, res, appId);
    if (signedIn && !this.web.sessionTokenMatches(req, signedIn)) {
      this.web.refuseCsrf(res, this.web.viewer(signedIn));
      return null;
    }
    return signedIn;
  }

  /** A request the API itself would refuse (400), in words. */
  private refuse(res: Response, signedIn: ConsoleSession, appId: string, problem: string): void {
    this.web.send(
      res,
      400,
      page(
        'Webhook endpoints',
        html`<p class="notice" role="alert">${problem}</p>
          <p><a href="/apps/${appId}/webhooks">Back to the endpoints</a></p>`,
        this.web.viewer(signedIn),
      ),
    );
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
