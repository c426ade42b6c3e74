import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDomainError, type DomainError } from '#platform/errors';
import { MembersHandler } from '../members/members.handler';
import { BeforeSignIn } from './change.guard';
import { ConsoleWeb } from './console-web';
import { html } from './html';
import { changeAction, page } from './layout';

/** An emailed invitation link: accepting it joins the app and signs in; a link that no longer works says why. */
@Controller()
export class InvitationLinkController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly members: MembersHandler,
  ) {}

  @Get('/invitations/:token')
  async confirm(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    // A link something ended says why at once; accepting decides again, so this is only what the page shows.
    const refusal = await this.members.refusalOf(token);
    if (refusal) return this.refuse(res, refusal);
    const csrf = this.web.formToken(req, res);
    this.web.send(
      res,
      200,
      page(
        'Invitation',
        html`<p>Accepting signs you in with the address the invitation was sent to.</p>
          <form method="post" action="${changeAction(`/invitations/${token}`, csrf)}">
            <button type="submit">Accept the invitation</button>
          </form>`,
      ),
    );
  }

  @Post('/invitations/:token')
  @BeforeSignIn()
  async accept(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.web.formTokenMatches(req)) return this.web.refuseCsrf(res);
    try {
      const { appId, cookieToken, expiresAt } = await this.members.accept(token);
      this.web.startSession(res, cookieToken, expiresAt);
      this.web.redirect(res, `/apps/${appId}`);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      this.refuse(res, error);
    }
  }

  /** Unknown is 404; a link something ended (used, withdrawn, replaced, expired...) is gone: 410, with the decider's reason. */
  private refuse(res: Response, error: DomainError): void {
    const known = error.code !== 'not_found';
    const reason = known ? error.message : 'This invitation link is not known: it may be mistyped, or expired and deleted.';
    this.web.problem(res, known ? 410 : 404, known ? 'This invitation no longer works' : 'Unknown invitation', reason, null, {
      href: '/',
      label: 'Sign in',
    });
  }
}
