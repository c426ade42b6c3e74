import { DomainError } from '@platform/errors';
import type { RpcClient } from '@platform/kafka';
import { parseConsentsQuery } from './consents-query';
import { CreateOptInLinkDto } from './create-optin-link.dto';
import type { PublicRoute } from './public-route';

/** Path ids are at most 64 characters (spec, Endpoints); longer ones are a bad request, not a miss. */
export function checkPathId(field: string, value: string): void {
  if (value.length > 64) throw DomainError.invalid([{ field, issue: 'must be at most 64 characters' }]);
}

/** GET /users/{appUserId}, GET /consents, POST /optin-links: answered by the consent service. */
export function consentRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  return [
    {
      method: 'GET',
      path: '/users/:appUserId',
      scope: 'consents:read',
      handle: async (ctx) => {
        checkPathId('appUserId', ctx.params.appUserId);
        return { status: 200, body: await deps.rpc.call('consent', 'users.get', ctx.caller, { appId: ctx.app.appId, appUserId: ctx.params.appUserId }) };
      },
    },
    {
      method: 'GET',
      path: '/consents',
      scope: 'consents:read',
      handle: async (ctx) => ({
        status: 200,
        body: await deps.rpc.call('consent', 'consents.list', ctx.caller, { appId: ctx.app.appId, ...parseConsentsQuery(ctx.query) }),
      }),
    },
    {
      method: 'POST',
      path: '/optin-links',
      scope: 'optin_links:create',
      body: CreateOptInLinkDto,
      handle: async (ctx) => ({
        status: 201,
        body: await deps.rpc.call('consent', 'optinLinks.create', ctx.caller, {
          appId: ctx.app.appId,
          ref: ctx.body.ref ?? null,
          expiresInDays: ctx.body.expiresInDays ?? null,
        }),
      }),
    },
  ];
}
