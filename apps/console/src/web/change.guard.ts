import { Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AccessRefused } from './access-refused';
import { ConsoleWeb } from './console-web';

const BEFORE_SIGN_IN = 'console:before-sign-in';

/**
 * A change made before there is a session (asking for a sign-in link, following it, accepting an
 * invitation): it carries the pre-session form token instead of a session's.
 */
export const BeforeSignIn = () => SetMetadata(BEFORE_SIGN_IN, true);

/**
 * Every change (any request but GET and HEAD) is checked from its head before any of its body is
 * read: no body parser runs before this guard (the console starts without one; FormBodyInterceptor
 * and multer run after guards). A change needs a session and that session's CSRF token, or, marked
 * @BeforeSignIn(), the pre-session form token; the token comes in the URL (changeAction). A route
 * added later is protected unless it says otherwise.
 */
@Injectable()
export class ChangeGuard implements CanActivate {
  constructor(
    private readonly web: ConsoleWeb,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    if (req.method === 'GET' || req.method === 'HEAD') return true;
    if (this.reflector.getAllAndOverride<boolean>(BEFORE_SIGN_IN, [context.getHandler(), context.getClass()])) {
      if (!this.web.formTokenMatches(req)) throw new AccessRefused('csrf', null);
      return true;
    }
    const signedIn = await this.web.session(req);
    if (!signedIn) throw new AccessRefused('signed-out', null);
    if (!this.web.sessionTokenMatches(req, signedIn)) throw new AccessRefused('csrf', this.web.viewer(signedIn));
    return true;
  }
}
