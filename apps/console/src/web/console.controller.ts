import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { parseCookie as parseCookies, stringifySetCookie } from 'cookie';
import type { Request, Response } from 'express';
import type { BlockList } from 'node:net';
import { isDomainError } from '#platform/errors';
import { clientAddress, ServiceRuntime } from '#platform/service-kit';
import { newToken, sameToken } from '../sessions/secret-tokens';
import { endSession, findSession, type ConsoleSession } from '../sessions/session-store';
import { SignInHandler } from '../sign-in/sign-in.handler';
import { html } from './html';
import { page, type Viewer } from './layout';

export const CONSOLE_SETTINGS = Symbol('CONSOLE_SETTINGS');
export interface ConsoleWebSettings {
  consoleUrl: string;
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES), for the per-client sign-in limit. */
  trustedProxies: BlockList;
}

const SESSION_COOKIE = 'console_session';
/** The sign-in forms' CSRF token before there is a session (double submit: cookie and field must match). */
const FORM_COOKIE = 'console_csrf';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * The console's pages: sign-in by emailed link, sign-out, the apps a person is a member of. Server
 * rendered, no script; every change is a POST carrying a CSRF token; an app the person is not a
 * member of is 404, as in the API.
 */
@Controller()
export class ConsoleController {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly signIn: SignInHandler,
    @Inject(CONSOLE_SETTINGS) private readonly settings: ConsoleWebSettings,
  ) {}

  @Get('/')
  async home(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (await this.session(req)) return this.redirect(res, '/apps');
    const csrf = this.formToken(req, res);
    this.send(
      res,
      200,
      page(
        'Sign in',
        html`<p>We email you a link that signs you in.</p>
          <form method="post" action="/sign-in">
            <input type="hidden" name="csrf" value="${csrf}" />
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="email" required />
            <button type="submit">Sign in</button>
          </form>`,
      ),
    );
  }

  @Post('/sign-in')
  async requestLink(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.formTokenMatches(req)) return this.refuseCsrf(res);
    const email = String(req.body?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > 254) {
      return this.send(
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
      await this.signIn.requestLink(email, clientAddress(req, this.settings.trustedProxies));
    } catch (error) {
      if (isDomainError(error) && error.code === 'rate_limited') {
        return this.send(
          res,
          429,
          page('Sign in', html`<p class="notice" role="alert">Too many sign-in requests from here. Wait a few minutes, then try again.</p>`),
        );
      }
      throw error;
    }
    // The same answer whether or not the address may sign in: the page tells nobody who has apps.
    this.send(
      res,
      200,
      page('Check your email', html`<p class="notice" role="status">If ${email} may sign in, a sign-in link is on its way. It works once, for 15 minutes.</p>`),
    );
  }

  @Get('/sign-in/:token')
  async confirmLink(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    // Following the link only shows a button: mail scanners that open links do not use them up.
    const csrf = this.formToken(req, res);
    this.send(
      res,
      200,
      page(
        'Sign in',
        html`<form method="post" action="/sign-in/${token}">
          <input type="hidden" name="csrf" value="${csrf}" />
          <button type="submit">Continue signing in</button>
        </form>`,
      ),
    );
  }

  @Post('/sign-in/:token')
  async useLink(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.formTokenMatches(req)) return this.refuseCsrf(res);
    try {
      const { sessionToken, expiresAt } = await this.signIn.useLink(token);
      res.append('Set-Cookie', this.cookie(SESSION_COOKIE, sessionToken, Math.ceil((expiresAt.getTime() - this.runtime.clock.now().getTime()) / 1000)));
      return this.redirect(res, '/apps');
    } catch (error) {
      if (!isDomainError(error)) throw error;
      this.send(
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
    const session = await this.session(req);
    if (session && !sameToken(String(req.body?.csrf ?? ''), session.csrfToken)) return this.refuseCsrf(res);
    const token = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    if (token) await endSession(this.runtime.em(), token);
    res.append('Set-Cookie', this.cookie(SESSION_COOKIE, '', 0));
    this.redirect(res, '/');
  }

  @Get('/apps')
  async apps(@Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.session(req);
    if (!session) return this.redirect(res, '/');
    const apps = await this.runtime
      .em()
      .execute<{ app_id: string; display_name: string; handle: string; role: string }[]>(
        `select a.app_id, a.display_name, a.handle, m.role from console.members m join console.apps a using (app_id) where m.email = ? order by a.display_name, a.app_id`,
        [session.email],
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
                  <td><a href="/apps/${app.app_id}">${app.display_name}</a></td>
                  <td>${app.handle}</td>
                  <td>${app.role}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
      : html`<p>You are not a member of any app yet.</p>`;
    this.send(res, 200, page('Your apps', body, this.viewer(session)));
  }

  @Get('/apps/:appId')
  async overview(@Param('appId') appId: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const session = await this.session(req);
    if (!session) return this.redirect(res, '/');
    const [app] = await this.runtime
      .em()
      .execute<{ display_name: string; handle: string; created_at: Date; role: string }[]>(
        `select a.display_name, a.handle, a.created_at, m.role from console.apps a join console.members m using (app_id) where a.app_id = ? and m.email = ?`,
        [appId, session.email],
      );
    // Not a member: the same 404 as an app that does not exist.
    if (!app) return this.send(res, 404, page('Not found', html`<p>There is no such app.</p>`, this.viewer(session)));
    this.send(
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
          <dd>${new Date(app.created_at).toISOString()}</dd>
          <dt>Your role</dt>
          <dd>${app.role}</dd>
        </dl>`,
        this.viewer(session),
      ),
    );
  }

  private session(req: Request): Promise<ConsoleSession | null> {
    return findSession(this.runtime.em(), parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE], this.runtime.clock.now());
  }

  private viewer(session: ConsoleSession): Viewer {
    return { email: session.email, csrfToken: session.csrfToken };
  }

  /** The sign-in forms' token: the cookie's if there is one, else a new one set now. */
  private formToken(req: Request, res: Response): string {
    const existing = parseCookies(req.headers.cookie ?? '')[FORM_COOKIE];
    if (existing) return existing;
    const token = newToken();
    res.append('Set-Cookie', this.cookie(FORM_COOKIE, token, 24 * 3600));
    return token;
  }

  private formTokenMatches(req: Request): boolean {
    return sameToken(String(req.body?.csrf ?? ''), parseCookies(req.headers.cookie ?? '')[FORM_COOKIE]);
  }

  private refuseCsrf(res: Response): void {
    this.send(res, 403, page('Sign in', html`<p class="notice" role="alert">This form expired. Go back, reload the page and send it again.</p>`));
  }

  private cookie(name: string, value: string, maxAgeSeconds: number): string {
    return stringifySetCookie({
      name,
      value,
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      maxAge: Math.max(0, maxAgeSeconds),
      // Secure wherever the console is served over https (everywhere but a local dev or test stack).
      secure: this.settings.consoleUrl.startsWith('https://'),
    });
  }

  private redirect(res: Response, location: string): void {
    res.status(303).setHeader('Location', location);
    this.secure(res);
    res.end();
  }

  private send(res: Response, status: number, body: string): void {
    this.secure(res);
    res.status(status).type('html').send(body);
  }

  private secure(res: Response): void {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Sign-in links carry their token in the path: never send it on as a Referer.
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
  }
}
