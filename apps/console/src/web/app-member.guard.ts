import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AccessRefused } from './access-refused';
import { ConsoleWeb } from './console-web';
import type { Viewer } from './layout';

/** The person looking at a page of an app, and their role in it. */
export interface AppMemberViewer extends Viewer {
  role: 'owner' | 'member';
}

const membersOf = new WeakMap<Request, AppMemberViewer>();

/**
 * Every route naming an app (`:appId`) is for its members only, checked from the request's head
 * after ChangeGuard (a change's session and CSRF token): nobody signed in is sent to sign in, and
 * anyone else gets the same 404 as for an app that does not exist. A route added later is
 * protected by its path alone; its handler takes the member with @AppMember().
 */
@Injectable()
export class AppMemberGuard implements CanActivate {
  constructor(private readonly web: ConsoleWeb) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const appId = req.params?.appId;
    if (appId === undefined) return true;
    const signedIn = await this.web.session(req);
    if (!signedIn) throw new AccessRefused('signed-out', null);
    const viewer = this.web.viewer(signedIn);
    const [member] = await this.web.runtime
      .em()
      .execute<{ role: AppMemberViewer['role'] }[]>(`select role from console.members where app_id = ? and email = ?`, [appId, signedIn.email]);
    if (!member) throw new AccessRefused('not-member', viewer);
    membersOf.set(req, { ...viewer, role: member.role });
    return true;
  }
}

/** The signed-in member of the route's `:appId`, as AppMemberGuard found them. */
export const AppMember = createParamDecorator((_: unknown, context: ExecutionContext): AppMemberViewer => {
  const member = membersOf.get(context.switchToHttp().getRequest<Request>());
  // Only a route without `:appId` has none: a mistake in the route, not the visitor's.
  if (!member) throw new Error('@AppMember() is for routes under /apps/:appId');
  return member;
});
