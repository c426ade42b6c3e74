import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MembersHandler } from '../members/members.handler';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { ConsoleWeb } from './console-web';
import { page } from './layout';
import { membersPage, type MemberRow, type WaitingInvitation } from './members-page';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** An app's members: owners invite by email, withdraw invitations, make owners and remove; the link is accepted elsewhere. */
@Controller()
export class MembersController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly members: MembersHandler,
  ) {}

  @Get('/apps/:appId/members')
  async list(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): Promise<void> {
    const em = this.web.runtime.em();
    const members = await em.execute<MemberRow[]>(`select email, role from console.members where app_id = ? order by added_at, email`, [appId]);
    // The links that still work: not accepted, ended or expired, and sent by someone who is an owner now.
    const waiting = await em.execute<WaitingInvitation[]>(
      `select i.email, i.invited_by, i.invited_at, i.expires_at from console.invitations i
        where i.app_id = ? and i.accepted_at is null and i.ended_at is null and i.expires_at > ?
          and exists (select 1 from console.members m where m.app_id = i.app_id and m.email = i.invited_by and m.role = 'owner')
        order by i.invited_at`,
      [appId, this.web.runtime.clock.now()],
    );
    this.web.send(res, 200, page('Members', membersPage(appId, viewer, viewer.role === 'owner', members, waiting, this.web.runtime.clock.now()), viewer));
  }

  @Post('/apps/:appId/members')
  async invite(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    const email = String(req.body?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254)
      return this.web.problem(res, 400, 'Members', 'That is not an email address.', viewer, {
        href: `/apps/${appId}/members`,
        label: 'Back to the members',
      });
    await this.members.invite(appId, viewer.email, email);
    this.web.redirect(res, `/apps/${appId}/members`);
  }

  @Post('/apps/:appId/invitations/withdraw')
  async withdraw(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.change(appId, req, res, (email) => this.members.withdraw(appId, viewer.email, email));
  }

  @Post('/apps/:appId/members/owner')
  async makeOwner(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.change(appId, req, res, (email) => this.members.makeOwner(appId, viewer.email, email));
  }

  @Post('/apps/:appId/members/remove')
  async remove(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.change(appId, req, res, (email) => this.members.remove(appId, viewer.email, email));
  }

  /** A change to one address by a member (AppMemberGuard); the decider's refusals become pages. */
  private async change(appId: string, req: Request, res: Response, decide: (email: string) => Promise<void>): Promise<void> {
    const email = String(req.body?.email ?? '')
      .trim()
      .toLowerCase();
    await decide(email);
    this.web.redirect(res, `/apps/${appId}/members`);
  }
}
