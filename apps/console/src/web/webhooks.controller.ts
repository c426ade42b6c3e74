import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RECOVER_CALL_TIMEOUT_MS, WEBHOOKS, type PublicEventType } from '#platform/contracts';
import { RpcClient } from '#platform/kafka';
import { AuditTrail } from '../audit/audit-trail';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { html } from './html';
import { page } from './layout';
import { readableTime } from './readable-time';
import { sinceFromForm } from './recover-since';
import { endpointsPage, SUBSCRIBABLE } from './webhook-pages';

const ENDPOINTS_LINK = (appId: string) => ({ href: `/apps/${appId}/webhooks`, label: 'Back to the endpoints' });

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
 * An app's webhook endpoints (their deliveries: webhook-deliveries.controller.ts). Every change goes to the webhook dispatcher over RPC,
 * the same operations the public API calls, so the same rules (URL checks, handshake, limits) and
 * the same errors apply; refusals are shown in words.
 */
@Controller()
export class WebhooksController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
    private readonly audit: AuditTrail,
  ) {}

  @Get('/apps/:appId/webhooks')
  async list(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): Promise<void> {
    const [{ data: endpoints }, { data: health }] = await Promise.all([
      this.rpc.call('webhooks', 'endpoints.list', this.web.rpcCaller(appId), { appId }),
      this.rpc.call('webhooks', 'endpoints.health', this.web.rpcCaller(appId), { appId }),
    ]);
    this.web.send(res, 200, page('Webhook endpoints', endpointsPage(appId, viewer, endpoints, health, this.web.runtime.clock.now()), viewer));
  }

  @Post('/apps/:appId/webhooks')
  async add(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    const events = subscribedEvents(req.body?.events);
    const verifyToken = String(req.body?.verifyToken ?? '');
    const problem = requestProblem({ events, verifyToken });
    if (problem) return this.web.problem(res, 400, 'Webhook endpoints', problem, viewer, ENDPOINTS_LINK(appId));
    const created = await this.audit.change(
      appId,
      viewer.email,
      'endpoint.added',
      (caller) => this.rpc.call('webhooks', 'endpoints.create', caller, { appId, url: String(req.body?.url ?? '').trim(), verifyToken, events }),
      (endpoint) => endpoint.url,
    );
    // The signing secret is shown this once, as the API shows it once.
    this.web.send(
      res,
      201,
      page(
        'Endpoint added',
        html`<p class="notice" role="status">${created.url} was added (${created.state}).</p>
          <label for="secret">Signing secret (shown once: copy it now)</label>
          <input id="secret" type="text" readonly value="${created.secret}" />
          <button type="button" data-copy="secret">Copy</button>
          <p><a href="/apps/${appId}/webhooks">Back to the endpoints</a></p>`,
        viewer,
      ),
    );
  }

  @Post('/apps/:appId/webhooks/:endpointId/test')
  async test(
    @Param('appId') appId: string,
    @Param('endpointId') endpointId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    await this.audit.change(
      appId,
      viewer.email,
      'endpoint.tested',
      (caller) => this.rpc.call('webhooks', 'endpoints.test', caller, { appId, endpointId }),
      () => endpointId,
    );
    this.web.redirect(res, `/apps/${appId}/webhook-deliveries?endpoint=${encodeURIComponent(endpointId)}`);
  }

  @Post('/apps/:appId/webhooks/:endpointId/verify')
  async verify(
    @Param('appId') appId: string,
    @Param('endpointId') endpointId: string,
    @AppMember() viewer: AppMemberViewer,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const verifyToken = String(req.body?.verifyToken ?? '');
    const problem = requestProblem({ verifyToken });
    if (problem) return this.web.problem(res, 400, 'Webhook endpoints', problem, viewer, ENDPOINTS_LINK(appId));
    await this.audit.change(
      appId,
      viewer.email,
      'endpoint.verified',
      (caller) => this.rpc.call('webhooks', 'endpoints.verify', caller, { appId, endpointId, verifyToken }),
      (endpoint) => endpoint.url,
    );
    this.web.redirect(res, `/apps/${appId}/webhooks`);
  }

  @Post('/apps/:appId/webhooks/:endpointId/rotate-secret')
  async rotate(
    @Param('appId') appId: string,
    @Param('endpointId') endpointId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    const rotated = await this.audit.change(
      appId,
      viewer.email,
      'endpoint.secretRotated',
      (caller) => this.rpc.call('webhooks', 'endpoints.rotateSecret', caller, { appId, endpointId }),
      () => endpointId,
    );
    this.web.send(
      res,
      200,
      page(
        'Secret rotated',
        html`<label for="secret">New signing secret (shown once: copy it now)</label>
          <input id="secret" type="text" readonly value="${rotated.secret}" />
          <button type="button" data-copy="secret">Copy</button>
          <p>The previous secret keeps signing beside it until ${readableTime(rotated.previousSecretExpiresAt, this.web.runtime.clock.now())}.</p>
          <p><a href="/apps/${appId}/webhooks">Back to the endpoints</a></p>`,
        viewer,
      ),
    );
  }

  @Post('/apps/:appId/webhooks/:endpointId/events')
  async changeEvents(
    @Param('appId') appId: string,
    @Param('endpointId') endpointId: string,
    @AppMember() viewer: AppMemberViewer,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const events = subscribedEvents(req.body?.events);
    const problem = requestProblem({ events });
    if (problem) return this.web.problem(res, 400, 'Webhook endpoints', problem, viewer, ENDPOINTS_LINK(appId));
    await this.audit.change(
      appId,
      viewer.email,
      'endpoint.eventsChanged',
      (caller) => this.rpc.call('webhooks', 'endpoints.update', caller, { appId, endpointId, events }),
      (endpoint) => `${endpoint.url} (${endpoint.events.join(', ')})`,
    );
    this.web.redirect(res, `/apps/${appId}/webhooks`);
  }

  /** POST /webhooks/{id}/recover from the endpoint's section; the dispatcher's refusals (range, disabled, in progress) are shown in words. */
  @Post('/apps/:appId/webhooks/:endpointId/recover')
  async recover(
    @Param('appId') appId: string,
    @Param('endpointId') endpointId: string,
    @AppMember() viewer: AppMemberViewer,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const since = sinceFromForm(req.body?.since);
    if (!since)
      return this.web.problem(res, 400, 'Webhook endpoints', 'Give the time to recover from, like 2026-10-14T09:30 (UTC).', viewer, ENDPOINTS_LINK(appId));
    const { recovered } = await this.audit.change(
      appId,
      viewer.email,
      'endpoint.recovered',
      (caller) => this.rpc.call('webhooks', 'endpoints.recover', caller, { appId, endpointId, since }, RECOVER_CALL_TIMEOUT_MS),
      (result) => `${endpointId} since ${since} (${result.recovered} events)`,
    );
    this.web.send(
      res,
      200,
      page(
        'Events recovered',
        html`<p class="notice" role="status">
            ${
              recovered === 0
                ? html`The endpoint missed no event since ${readableTime(since, this.web.runtime.clock.now())}: nothing to deliver again.`
                : html`${recovered} ${recovered === 1 ? 'event' : 'events'} since ${readableTime(since, this.web.runtime.clock.now())} will be delivered again.`
            }
          </p>
          <p><a href="/apps/${appId}/webhook-deliveries?endpoint=${encodeURIComponent(endpointId)}">The endpoint's deliveries</a></p>
          <p><a href="/apps/${appId}/webhooks">Back to the endpoints</a></p>`,
        viewer,
      ),
    );
  }

  @Post('/apps/:appId/webhooks/:endpointId/delete')
  async remove(
    @Param('appId') appId: string,
    @Param('endpointId') endpointId: string,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    await this.audit.change(
      appId,
      viewer.email,
      'endpoint.deleted',
      (caller) => this.rpc.call('webhooks', 'endpoints.delete', caller, { appId, endpointId }),
      () => endpointId,
    );
    this.web.redirect(res, `/apps/${appId}/webhooks`);
  }
}
