import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDomainError } from '#platform/errors';
import { MembersHandler } from '../members/members.handler';
import { ConsoleWeb } from './console-web';
import { html } from './html';
import { page } from './layout';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** An app's members: owners invite by email and remove; invitations are accepted by their link. */
@Controller()
export class MembersController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly members: MembersHandler,
  ) {}

  @Get('/apps/:appId/members')
  async list(@Param('appId') appId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.web.session(req);
    if (!signedIn) return this.web.redirect(res, '/');
    const viewer = this.web.viewer(signedIn);
    const em = this.web.runtime.em();
    const members = await em.execute<{ email: string; role: string }[]>(`select email, role from console.members where app_id = ? order by added_at, email`, [
      appId,
    ]);
    const mine = members.find((m) => m.email === signedIn.email);
    if (!mine) return this.web.notFound(res, viewer);
    const owner = mine.role === 'owner';
    const pending = await em.execute<{ email: string; expires_at: Date }[]>(
      `select email, expires_at from console.invitations where app_id = ? and accepted_at is null and expires_at > ? order by invited_at`,
      [appId, this.web.runtime.clock.now()],
    );
    this.web.send(
      res,
      200,
      page(
        'Members',
        html`<p><a href="/apps/${appId}">Back to the app</a></p>
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                ${owner ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : null}
              </tr>
            </thead>
            <tbody>
              ${members.map(
                (m) =>
                  html`<tr>
                    <td>${m.email}</td>
                    <td>${m.role}</td>
                    ${
                      owner
                        ? html`<td>
                            <form class="inline" method="post" action="/apps/${appId}/members/remove">
                              <input type="hidden" name="csrf" value="${viewer.csrfToken}" />
                              <input type="hidden" name="email" value="${m.email}" />
                              <button type="submit" aria-label="Remove ${m.email}">Remove</button>
                            </form>
                          </td>`
                        : null
                    }
                  </tr>`,
              )}
            </tbody>
          </table>
          ${
            pending.length
              ? html`<h2>Invited</h2>
                  <ul>
                    ${pending.map((p) => html`<li>${p.email} (until ${new Date(p.expires_at).toISOString()})</li>`)}
                  </ul>`
              : null
          }
          ${
            owner
              ? html`<h2>Invite someone</h2>
                  <form method="post" action="/apps/${appId}/members">
                    <input type="hidden" name="csrf" value="${viewer.csrfToken}" />
                    <label for="invite-email">Email address to invite</label>
                    <input id="invite-email" name="email" type="email" required />
                    <button type="submit">Invite</button>
                  </form>`
              : null
          }`,
        viewer,
      ),
    );
  }

  @Post('/apps/:appId/members')
  async invite(@Param('appId') appId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.web.memberChange(req, res, appId);
    if (!signedIn) return;
    const email = String(req.body?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254)
      return this.web.problem(res, 400, 'Members', 'That is not an email address.', this.web.viewer(signedIn), {
        href: `/apps/${appId}/members`,
        label: 'Back to the members',
      });
    await this.members.invite(appId, signedIn.email, email);
    this.web.redirect(res, `/apps/${appId}/members`);
  }

  @Post('/apps/:appId/members/remove')
  async remove(@Param('appId') appId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.web.memberChange(req, res, appId);
    if (!signedIn) return;
    const email = String(req.body?.email ?? '')
      .trim()
      .toLowerCase();
    await this.members.remove(appId, signedIn.email, email);
    this.web.redirect(res, `/apps/${appId}/members`);
  }

  @Get('/invitations/:token')
  confirm(@Param('token') token: string, @Req() req: Request, @Res() res: Response): void {
    const csrf = this.web.formToken(req, res);
    this.web.send(
      res,
      200,
      page(
        'Invitation',
        html`<p>Accepting signs you in with the address the invitation was sent to.</p>
          <form method="post" action="/invitations/${token}">
            <input type="hidden" name="csrf" value="${csrf}" />
            <button type="submit">Accept the invitation</button>
          </form>`,
      ),
    );
  }

  @Post('/invitations/:token')
  async accept(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.web.formTokenMatches(req)) return this.web.refuseCsrf(res);
    try {
      const { appId, cookieToken, expiresAt } = await this.members.accept(token);
      this.web.startSession(res, cookieToken, expiresAt);
      this.web.redirect(res, `/apps/${appId}`);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      this.web.send(
        res,
        400,
        page('Invitation', html`<p class="notice" role="alert">This invitation does not work: it was accepted already, has expired or is unknown.</p>`),
      );
    }
  }
}
