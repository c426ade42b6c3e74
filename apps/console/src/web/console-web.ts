import { Inject, Injectable } from '@nestjs/common';
import { parseCookie } from 'cookie';
import type { Request, Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { BlockList } from 'node:net';
import type { RpcCaller } from '#platform/contracts';
import { ServiceRuntime, type SecretKeyRing } from '#platform/service-kit';
import { consoleSetCookie, type ConsoleCookies } from '../sessions/console-cookies';
import { formTokenFor, formTokenMatches } from '../sessions/form-token';
import { newToken, sameToken } from '../sessions/secret-tokens';
import { findSession, type ConsoleSession } from '../sessions/session-store';
import { html } from './html';
import { page, type Viewer } from './layout';

export const CONSOLE_SETTINGS = Symbol('CONSOLE_SETTINGS');
export interface ConsoleWebSettings {
  consoleUrl: string;
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES), for the per-client sign-in limit. */
  trustedProxies: BlockList;
  /** The cookies' names and flag (`__Host-` and Secure over https). */
  cookies: ConsoleCookies;
  /** SECRETS_KEYS: the pre-session form tokens are made under it (form-token.ts). */
  secretKeys: SecretKeyRing;
}

/** Who calls a service for a page: the app, and a request id of the console's own. */
export function consoleCaller(appId: string): RpcCaller {
  return { requestId: `con_${randomBytes(9).toString('base64url')}`, appId };
}

/** What every console page needs: the session, CSRF tokens, cookies with the right flags, safe answers. */
@Injectable()
export class ConsoleWeb {
  private readonly sessions = new WeakMap<Request, Promise<ConsoleSession | null>>();

  constructor(
    readonly runtime: ServiceRuntime,
    @Inject(CONSOLE_SETTINGS) readonly settings: ConsoleWebSettings,
  ) {}

  cookie(req: Request, name: string): string | undefined {
    return parseCookie(req.headers.cookie ?? '')[name];
  }

  /** The request's session, looked up once per request (ChangeGate looks first, the page after). */
  session(req: Request): Promise<ConsoleSession | null> {
    let found = this.sessions.get(req);
    if (!found) {
      found = findSession(this.runtime.em(), this.sessionCookie(req), this.runtime.clock.now());
      this.sessions.set(req, found);
    }
    return found;
  }

  /** The CSRF token of a change: in the form's action URL (changeAction), so it is known before the body is read. */
  changeToken(req: Request): string {
    const token = req.query?.csrf;
    return typeof token === 'string' ? token : '';
  }

  rpcCaller(appId: string): RpcCaller {
    return consoleCaller(appId);
  }

  viewer(signedIn: ConsoleSession): Viewer {
    return { email: signedIn.email, csrfToken: signedIn.csrfToken };
  }

  /** A change made within a session carries that session's token. */
  sessionTokenMatches(req: Request, signedIn: ConsoleSession): boolean {
    return sameToken(this.changeToken(req), signedIn.csrfToken);
  }

  /** The session cookie's token, if any. */
  sessionCookie(req: Request): string | undefined {
    return this.cookie(req, this.settings.cookies.session);
  }

  /**
   * The token of the forms used before there is a session, bound to this browser's pre-session
   * cookie (a random id, set now if missing): form-token.ts.
   */
  formToken(req: Request, res: Response): string {
    let cookieId = this.cookie(req, this.settings.cookies.formToken);
    if (!cookieId || !/^[A-Za-z0-9_-]{43}$/.test(cookieId)) {
      cookieId = newToken();
      res.append('Set-Cookie', consoleSetCookie(this.settings.cookies, this.settings.cookies.formToken, cookieId, 24 * 3600));
    }
    return formTokenFor(this.settings.secretKeys, cookieId);
  }

  formTokenMatches(req: Request): boolean {
    return formTokenMatches(this.settings.secretKeys, this.cookie(req, this.settings.cookies.formToken), this.changeToken(req));
  }

  startSession(res: Response, cookieToken: string, expiresAt: Date): void {
    const maxAge = Math.ceil((expiresAt.getTime() - this.runtime.clock.now().getTime()) / 1000);
    res.append('Set-Cookie', consoleSetCookie(this.settings.cookies, this.settings.cookies.session, cookieToken, maxAge));
  }

  endSessionCookie(res: Response): void {
    res.append('Set-Cookie', consoleSetCookie(this.settings.cookies, this.settings.cookies.session, '', 0));
  }

  refuseCsrf(res: Response, viewer: Viewer | null = null): void {
    this.send(res, 403, page('Form expired', html`<p class="notice" role="alert">This form expired. Go back, reload the page and send it again.</p>`, viewer));
  }

  /** A request the page refuses (its own rule, or a service's), in words, with the way back. */
  problem(res: Response, status: number, title: string, message: string, viewer: Viewer | null, back: { href: string; label: string }): void {
    this.send(
      res,
      status,
      page(
        title,
        html`<p class="notice" role="alert">${message}</p>
          <p><a href="${back.href}">${back.label}</a></p>`,
        viewer,
      ),
    );
  }

  notFound(res: Response, viewer: Viewer | null): void {
    // The same page whether the app does not exist or the person is not a member of it.
    this.send(res, 404, page('Not found', html`<p>There is no such app.</p>`, viewer));
  }

  redirect(res: Response, location: string): void {
    this.secure(res);
    res.status(303).setHeader('Location', location);
    res.end();
  }

  send(res: Response, status: number, body: string): void {
    this.secure(res);
    res.status(status).type('html').send(body);
  }

  private secure(res: Response): void {
    // Answered before its body was read (a refusal): the connection ends with the answer, so nobody
    // holds it open by sending the body slowly, and no byte of it is read.
    const req = res.req as Request | undefined;
    if (req && !req.complete && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined))
      res.setHeader('Connection', 'close');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Sign-in and invitation links carry their token in the path: never send it on as a Referer.
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
  }
}
