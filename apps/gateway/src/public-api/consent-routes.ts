import type { RpcClient } from '#platform/kafka';
import { CONSENTS_QUERY, parseConsentsQuery } from './consents-query';
import { CreateOptInLinkDto } from './create-optin-link.dto';
import type { PublicContext, PublicRoute } from './public-route';

/** GET /users/{appUserId}, GET /consents, POST /optin-links: answered by the consent service. */
export function consentRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  return [
    {
      method: 'GET',
      path: '/users/:appUserId',
      scope: 'consents:read',
      doc: {
        operationId: 'getUser',
        tag: 'Consents',
        summary: "Get a user's consent and reply window",
        pathParams: { appUserId: 'The user within this app (u_…).' },
        success: { status: 200, schema: 'UserConsent', description: 'The consent and the window.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => {
        return { status: 200, body: await deps.rpc.call('consent', 'users.get', ctx.caller, { appId: ctx.app.appId, appUserId: ctx.params.appUserId }) };
      },
    },
    {
      method: 'GET',
      path: '/consents',
      scope: 'consents:read',
      query: CONSENTS_QUERY,
      doc: {
        operationId: 'listConsents',
        tag: 'Consents',
        summary: 'List consents',
        description:
          'Most recently changed first (updatedAt descending, then appUserId). Follow nextCursor for the next page; a listing is a snapshot taken at its first page.',
        success: { status: 200, schema: 'ConsentPage', description: 'One page.' },
      },
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
      doc: {
        operationId: 'createOptInLink',
        tag: 'Opt-in links',
        summary: 'Create an opt-in link',
        description: 'A signed link to the business profile. Opening it never opts the user in; the user must tap Allow.',
        success: { status: 201, schema: 'OptInLink', description: 'The link.' },
      },
      handle: async (ctx: PublicContext<CreateOptInLinkDto>) => ({
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
