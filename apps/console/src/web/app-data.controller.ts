import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { toString as qrSvg } from 'qrcode';
import { CONSENT_STATUSES, ERROR_CODES, optInLinkProblem, type ConsentStatus } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { RpcClient } from '#platform/kafka';
import { AuditTrail } from '../audit/audit-trail';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { html } from './html';
import { changeAction, page, type Viewer } from './layout';
import { readableTime } from './readable-time';
import { statusFilter } from './status-filter';

const MESSAGE_ID = /^msg_[A-Za-z0-9]{1,64}$/;

/**
 * What an app's people look up and hand out: a message's status timeline, the consents (filtered
 * and paged), and opt-in links with a QR code to print. Reads and writes go to the owning services
 * over RPC (messaging, consent), as the API's do.
 */
@Controller()
export class AppDataController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly rpc: RpcClient,
    private readonly audit: AuditTrail,
  ) {}

  @Get('/apps/:appId/messages')
  async message(
    @Param('appId') appId: string,
    @Query('id') rawId: string | undefined,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    const id = (rawId ?? '').trim();
    const form = html`<form method="get" action="/apps/${appId}/messages">
      <label for="message-id">Message id</label>
      <input id="message-id" name="id" type="text" value="${id}" required />
      <button type="submit">Look up</button>
    </form>`;
    if (!id) return this.web.send(res, 200, page('Message lookup', form, viewer));
    if (!MESSAGE_ID.test(id))
      return this.web.send(
        res,
        400,
        page(
          'Message lookup',
          html`${form}
            <p class="notice" role="alert">That is not a message id (msg_…).</p>`,
          viewer,
        ),
      );
    try {
      const m = await this.rpc.call('messaging', 'messages.get', this.web.rpcCaller(appId), { appId, messageId: id });
      const timeline: Array<[string, string | null]> = [
        [m.direction === 'outbound' ? 'accepted' : 'received', m.createdAt],
        ['delivered', m.deliveredAt],
        ['read', m.readAt],
      ];
      this.web.send(
        res,
        200,
        page(
          'Message lookup',
          html`${form}
            <dl>
              <dt>Message</dt>
              <dd>${m.id} (${m.direction}, ${m.type})</dd>
              <dt>User</dt>
              <dd>${m.appUserId}</dd>
              <dt>Status</dt>
              <dd>${m.status}</dd>
              ${
                m.text === null
                  ? null
                  : html`<dt>Text</dt>
                      <dd>${m.text}</dd>`
              }
            </dl>
            <h2>Timeline</h2>
            <ol>
              ${timeline.flatMap(([what, at]) => (at === null ? [] : [html`<li>${readableTime(at, this.web.runtime.clock.now())}: ${what}</li>`]))}
            </ol>`,
          viewer,
        ),
      );
    } catch (error) {
      if (!isDomainError(error) || ERROR_CODES[error.code].status !== 404) throw error;
      this.web.send(
        res,
        404,
        page(
          'Message lookup',
          html`${form}
            <p class="notice" role="alert">No message ${id} in this app.</p>`,
          viewer,
        ),
      );
    }
  }

  @Get('/apps/:appId/consents')
  async consents(
    @Param('appId') appId: string,
    @Query('status') rawStatus: string | undefined,
    @Query('cursor') rawCursor: string | undefined,
    @AppMember() viewer: AppMemberViewer,
    @Res() res: Response,
  ): Promise<void> {
    const status: ConsentStatus | null = CONSENT_STATUSES.find((s) => s === rawStatus) ?? null;
    const cursor = rawCursor && /^[A-Za-z0-9_.=-]{1,512}$/.test(rawCursor) ? rawCursor : null;
    const now = this.web.runtime.clock.now();
    const consents = await this.rpc.call('consent', 'consents.list', this.web.rpcCaller(appId), { appId, status, limit: 50, cursor });
    const next = consents.nextCursor ? `/apps/${appId}/consents?${new URLSearchParams({ ...(status ? { status } : {}), cursor: consents.nextCursor })}` : null;
    this.web.send(
      res,
      200,
      page(
        'Consents',
        html`${statusFilter({ action: `/apps/${appId}/consents`, id: 'consent-status', statuses: CONSENT_STATUSES, current: status })}
          <table>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Status</th>
                <th scope="col">Source</th>
                <th scope="col">Ref</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              ${consents.data.map(
                (c) =>
                  html`<tr>
                    <td data-label="User">${c.appUserId}</td>
                    <td data-label="Status">${c.status}</td>
                    <td data-label="Source">${c.source}</td>
                    <td data-label="Ref">${c.ref ?? ''}</td>
                    <td data-label="Updated">${readableTime(c.updatedAt, now)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
          ${next ? html`<p><a href="${next}" rel="next">Next page</a></p>` : null}`,
        viewer,
      ),
    );
  }

  @Get('/apps/:appId/optin-links')
  async optinForm(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): Promise<void> {
    this.web.send(res, 200, page('Opt-in links', this.optinFormHtml(appId, viewer), viewer));
  }

  @Post('/apps/:appId/optin-links')
  async createOptin(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    const ref = String(req.body?.ref ?? '').trim() || null;
    const days = String(req.body?.expiresInDays ?? '').trim();
    const expiresInDays = days ? Number(days) : null;
    // The API's own rules for the request (its DTO checks the same ones).
    const problem = optInLinkProblem(ref, expiresInDays);
    if (problem)
      return this.web.send(
        res,
        400,
        page(
          'Opt-in links',
          html`<p class="notice" role="alert">${problem}</p>
            ${this.optinFormHtml(appId, viewer)}`,
          viewer,
        ),
      );
    const link = await this.audit.change(
      appId,
      viewer.email,
      'optinLink.created',
      (caller) => this.rpc.call('consent', 'optinLinks.create', caller, { appId, ref, expiresInDays }),
      (created) => created.url,
    );
    const qr = await qrSvg(link.url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    this.web.send(
      res,
      201,
      page(
        'Opt-in link',
        html`<p><a href="${link.url}">${link.url}</a></p>
          <p>Ref: ${link.ref ?? 'none'} · valid until ${readableTime(link.expiresAt, this.web.runtime.clock.now())}</p>
          <img width="240" height="240" alt="QR code of the opt-in link" src="data:image/svg+xml;base64,${Buffer.from(qr).toString('base64')}" />
          ${this.optinFormHtml(appId, viewer)}`,
        viewer,
      ),
    );
  }

  private optinFormHtml(appId: string, viewer: Viewer) {
    return html`<h2>Create an opt-in link</h2>
      <form method="post" action="${changeAction(`/apps/${appId}/optin-links`, viewer.csrfToken)}">
        <label for="optin-ref">Ref (where the link is shown, optional)</label>
        <input id="optin-ref" name="ref" type="text" maxlength="128" />
        <label for="optin-days">Days it stays valid (optional)</label>
        <input id="optin-days" name="expiresInDays" type="text" inputmode="numeric" />
        <button type="submit">Create link</button>
      </form>`;
  }
}
