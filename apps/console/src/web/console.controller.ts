import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDomainError } from '#platform/errors';
import { RpcClient } from '#platform/kafka';
import { clientAddress } from '#platform/service-kit';
import { AuditTrail } from '../audit/audit-trail';
import { endSession } from '../sessions/session-store';
import { SignInHandler } from '../sign-in/sign-in.handler';
import { AppMember, type AppMemberViewer } from './app-member.guard';
import { auditLine } from './audit-lines';
import { BeforeSignIn } from './change.guard';
import { ConsoleWeb } from './console-web';
import { COPY_BUTTON_SCRIPT } from './copy-button.script';
import { TEMPLATE_PREVIEW_SCRIPT } from './template-preview.script';
import { html } from './html';
import { changeAction, page } from './layout';
import { readableTime } from './readable-time';
import { deliveriesFigure, lastUtcDays, messagesFigure } from './charts/overview-charts';

/** The overview charts' span: the last 30 UTC days, today included. */
const CHART_DAYS = 30;

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * Signing in and out, and the apps a person is a member of. Server rendered (script only copies and previews); every
 * change is a POST carrying a CSRF token; an app the person is not a member of is 404, as in the API.
 */
@Controller()
export class ConsoleController {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly signIn: SignInHandler,
    private readonly audit: AuditTrail,
    private readonly rpc: RpcClient,
  ) {}

  @Get('/')
  async home(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (await this.web.session(req)) return this.web.redirect(res, '/apps');
    const csrf = this.web.formToken(req, res);
    this.web.send(
      res,
      200,
      page(
        'Sign in',
        html`<p>We email you a link that signs you in.</p>
          <form method="post" action="${changeAction(`/sign-in`, csrf)}">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="email" required />
            <button type="submit">Sign in</button>
          </form>`,
      ),
    );
  }

  @Get('/assets/console.js')
  script(@Res() res: Response): void {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.status(200).type('text/javascript').send(`${COPY_BUTTON_SCRIPT}\n${TEMPLATE_PREVIEW_SCRIPT}`);
  }

  @Post('/sign-in')
  @BeforeSignIn()
  async requestLink(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.web.formTokenMatches(req)) return this.web.refuseCsrf(res);
    const email = String(req.body?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254) {
      return this.web.send(
        res,
        400,
        page(
          'Sign in',
          html`<p class="notice" role="alert">That is not an email address.</p>
            <p><a href="/">Try again</a></p>`,
        ),
      );
    }
    try {
      await this.signIn.requestLink(email, clientAddress(req, this.web.settings.trustedProxies));
    } catch (error) {
      if (isDomainError(error) && error.code === 'rate_limited') {
        return this.web.send(
          res,
          429,
          page('Sign in', html`<p class="notice" role="alert">Too many sign-in requests from here. Wait a few minutes, then try again.</p>`),
        );
      }
      throw error;
    }
    // The same answer whether or not the address may sign in: the page tells nobody who has apps.
    this.web.send(
      res,
      200,
      page('Check your email', html`<p class="notice" role="status">If ${email} may sign in, a sign-in link is on its way. It works once, for 15 minutes.</p>`),
    );
  }

  @Get('/sign-in/:token')
  confirmLink(@Param('token') token: string, @Req() req: Request, @Res() res: Response): void {
    // Following the link only shows a button: mail scanners that open links do not use them up.
    const csrf = this.web.formToken(req, res);
    this.web.send(
      res,
      200,
      page(
        'Sign in',
        html`<form method="post" action="${changeAction(`/sign-in/${token}`, csrf)}">
          <button type="submit">Continue signing in</button>
        </form>`,
      ),
    );
  }

  @Post('/sign-in/:token')
  @BeforeSignIn()
  async useLink(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.web.formTokenMatches(req)) return this.web.refuseCsrf(res);
    try {
      const { cookieToken, expiresAt } = await this.signIn.useLink(token);
      this.web.startSession(res, cookieToken, expiresAt);
      return this.web.redirect(res, '/apps');
    } catch (error) {
      if (!isDomainError(error)) throw error;
      this.web.send(
        res,
        400,
        page(
          'Sign in',
          html`<p class="notice" role="alert">This sign-in link does not work: it was used already, has expired or is unknown.</p>
            <p><a href="/">Ask for a new one</a></p>`,
        ),
      );
    }
  }

  @Post('/sign-out')
  async signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.web.session(req);
    if (signedIn && !this.web.sessionTokenMatches(req, signedIn)) return this.web.refuseCsrf(res, this.web.viewer(signedIn));
    const token = this.web.sessionCookie(req);
    if (token) await endSession(this.web.runtime.em(), token);
    this.web.endSessionCookie(res);
    this.web.redirect(res, '/');
  }

  @Get('/apps')
  async apps(@Req() req: Request, @Res() res: Response): Promise<void> {
    const signedIn = await this.web.session(req);
    if (!signedIn) return this.web.redirect(res, '/');
    const apps = await this.web.runtime
      .em()
      .execute<{ app_id: string; display_name: string; handle: string; role: string }[]>(
        `select a.app_id, a.display_name, a.handle, m.role from console.members m join console.apps a using (app_id) where m.email = ? order by a.display_name, a.app_id`,
        [signedIn.email],
      );
    const body = apps.length
      ? html`<table>
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Handle</th>
              <th scope="col">Your role</th>
            </tr>
          </thead>
          <tbody>
            ${apps.map(
              (app) =>
                html`<tr>
                  <td data-label="App"><a href="/apps/${app.app_id}">${app.display_name}</a></td>
                  <td data-label="Handle">${app.handle}</td>
                  <td data-label="Your role">${app.role}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
      : html`<p>You are not a member of any app yet.</p>`;
    this.web.send(res, 200, page('Your apps', body, this.web.viewer(signedIn)));
  }

  @Get('/apps/:appId')
  async overview(@Param('appId') appId: string, @AppMember() viewer: AppMemberViewer, @Res() res: Response): Promise<void> {
    // A member's app is always there (console.members references console.apps).
    const [app] = await this.web.runtime
      .em()
      .execute<{ display_name: string; handle: string; created_at: Date }[]>(`select display_name, handle, created_at from console.apps where app_id = ?`, [
        appId,
      ]);
    const now = this.web.runtime.clock.now();
    const days = lastUtcDays(now, CHART_DAYS);
    const [audit, platformApp, quota, messages, deliveries] = await Promise.all([
      this.audit.recent(appId),
      this.rpc.call('profile', 'apps.get', this.web.rpcCaller(appId), { appId }),
      this.rpc.call('messaging', 'apps.quotaUsed', this.web.rpcCaller(appId), { appId }),
      this.rpc.call('messaging', 'apps.messageCounts', this.web.rpcCaller(appId), { appId, fromDay: days[0], toDay: days[days.length - 1] }),
      this.rpc.call('webhooks', 'deliveries.dailyCounts', this.web.rpcCaller(appId), { appId, fromDay: days[0], toDay: days[days.length - 1] }),
    ]);
    this.web.send(
      res,
      200,
      page(
        app.display_name,
        html`<dl>
            <dt>App id</dt>
            <dd>${appId}</dd>
            <dt>Handle</dt>
            <dd>${app.handle}</dd>
            <dt>Created</dt>
            <dd>${readableTime(new Date(app.created_at), now)}</dd>
            <dt>Your role</dt>
            <dd>${viewer.role}</dd>
            <dt>Status</dt>
            <dd>${platformApp.status}</dd>
            <dt>Verification</dt>
            <dd>${platformApp.verificationStatus}</dd>
            <dt>Today's quota used</dt>
            <dd>${quota.accepted} of ${platformApp.dailyQuota} messages (${quota.day}, UTC)</dd>
          </dl>
          <nav aria-label="App">
            <ul>
              <li><a href="/apps/${appId}/members">Members</a></li>
              <li><a href="/apps/${appId}/keys">API keys</a></li>
              <li><a href="/apps/${appId}/requests">Request log</a></li>
              <li><a href="/apps/${appId}/profile">Business profile</a></li>
              <li><a href="/apps/${appId}/webhooks">Webhook endpoints</a></li>
              <li><a href="/apps/${appId}/webhook-deliveries">Webhook deliveries</a></li>
              <li><a href="/apps/${appId}/events">Events</a></li>
              <li><a href="/apps/${appId}/messages">Message lookup</a></li>
              <li><a href="/apps/${appId}/consents">Consents</a></li>
              <li><a href="/apps/${appId}/optin-links">Opt-in links</a></li>
              <li><a href="/apps/${appId}/templates">Message templates</a></li>
            </ul>
          </nav>
          <h2>Activity</h2>
          <div class="charts">${messagesFigure(days, messages.data)} ${deliveriesFigure(days, deliveries.data)}</div>
          <h2>Recent changes</h2>
          <ul>
            ${audit.map((entry) => html`<li>${readableTime(entry.occurredAt, now)}: ${auditLine(entry)}</li>`)}
          </ul>`,
        viewer,
      ),
    );
  }
}
