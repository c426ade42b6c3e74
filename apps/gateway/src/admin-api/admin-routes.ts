import { appUserIdFor, type AppRecord, type RpcCaller } from '#platform/contracts';
import { SERVICES_THE_GATEWAY_CALLS } from '../gateway.config';
import type { Clock } from '#platform/clock';
import { DomainError } from '#platform/errors';
import type { RpcClient } from '#platform/kafka';
import { pollUntil } from '#platform/service-kit';
import type { ApiKeysService } from '../api-keys/api-keys.service';
import type { AppAccessCache } from '../app-status/app-access.cache';
import type { TestClockService } from '../test-clock/test-clock.service';
import {
  AdvanceClockDto,
  ChangeAppStatusDto,
  ChangeVerificationDto,
  CreateAppDto,
  CreateKeyDto,
  CreateOrgDto,
  CreateUserDto,
  UpdateAppDto,
  UpdateOrgDto,
  UpdateUserDto,
} from './admin.dto';
import type { AdminContext, AdminRoute } from './admin-route';
import { ReviewTemplateDto } from '../public-api/template.dto';
import { audienceRoutes } from './audience-routes';
import { mailRoutes } from './mail-routes';
import { platformSettle } from './platform-settle';

export interface AdminDeps {
  rpc: RpcClient;
  keys: ApiKeysService;
  apps: AppAccessCache;
  clock: Clock;
  testClock: TestClockService | null;
  appUserIdSecret: string;
  /** The local SMTP sink's list (dev and test), or null: then GET /mail does not exist. */
  mailSinkUrl: string | null;
}

/** Admin calls return only once the gateway's own view of the app has caught up (no sleeps in tests). */
export function adminRoutes(deps: AdminDeps): AdminRoute[] {
  const platform = platformSettle(deps.rpc);
  const settle = async (appId: string, version: number, caller: RpcCaller) => {
    if (!(await deps.apps.waitForVersion(appId, version))) {
      throw new DomainError('internal_error', 'The change was made but the gateway has not seen it yet; retry the read.');
    }
    await platform.afterAppChange(caller, appId, version);
  };
  const publicApp = ({ version: _version, ...rest }: AppRecord) => rest;
  const knownApp = async (appId: string) => {
    if (!(await deps.apps.get(appId))) throw new DomainError('not_found', 'No such app.');
  };

  const routes: AdminRoute[] = [
    {
      method: 'POST',
      path: '/orgs',
      body: CreateOrgDto,
      handle: async (ctx: AdminContext<CreateOrgDto>) => {
        const { events, ...org } = await deps.rpc.call('chat-sim', 'orgs.create', ctx.caller, ctx.body);
        // Apps can be created for the org, and users of it reached, as soon as this returns.
        await waitUntil(async () => (await deps.rpc.call('profile', 'orgs.exists', ctx.caller, { orgId: org.id })).exists);
        await platform.afterChatEvents(ctx.caller, events);
        return { status: 201, body: org };
      },
    },
    {
      method: 'PATCH',
      path: '/orgs/:orgId',
      body: UpdateOrgDto,
      handle: async (ctx: AdminContext<UpdateOrgDto>) => {
        const { events, ...org } = await deps.rpc.call('chat-sim', 'orgs.update', ctx.caller, { orgId: ctx.params.orgId, ...ctx.body });
        await platform.afterChatEvents(ctx.caller, events);
        return { status: 200, body: org };
      },
    },
    {
      method: 'POST',
      path: '/users',
      body: CreateUserDto,
      handle: async (ctx: AdminContext<CreateUserDto>) => {
        const { events, ...user } = await deps.rpc.call('chat-sim', 'users.create', ctx.caller, ctx.body);
        await platform.afterChatEvents(ctx.caller, events);
        return { status: 201, body: user };
      },
    },
    {
      method: 'PATCH',
      path: '/users/:userId',
      body: UpdateUserDto,
      handle: async (ctx: AdminContext<UpdateUserDto>) => {
        const { events, ...user } = await deps.rpc.call('chat-sim', 'users.update', ctx.caller, { userId: ctx.params.userId, ...ctx.body });
        // A deletion opts the user out of every app: return once consent and messaging have it.
        await platform.afterChatEvents(ctx.caller, events);
        return { status: 200, body: user };
      },
    },
    {
      method: 'POST',
      path: '/apps',
      body: CreateAppDto,
      handle: async (ctx: AdminContext<CreateAppDto>) => {
        const created = await deps.rpc.call('profile', 'apps.create', ctx.caller, ctx.body);
        await settle(created.id, created.version, ctx.caller);
        return { status: 201, body: { id: created.id, orgId: created.orgId, handle: created.handle, status: created.status } };
      },
    },
    {
      method: 'GET',
      path: '/apps/:appId',
      handle: async (ctx) => ({ status: 200, body: publicApp(await deps.rpc.call('profile', 'apps.get', ctx.caller, { appId: ctx.params.appId })) }),
    },
    {
      method: 'POST',
      path: '/apps/:appId/status',
      body: ChangeAppStatusDto,
      handle: async (ctx: AdminContext<ChangeAppStatusDto>) => {
        const moved = await deps.rpc.call('profile', 'apps.changeStatus', ctx.caller, {
          appId: ctx.params.appId,
          action: ctx.body.action,
          reason: ctx.body.reason ?? null,
        });
        await settle(ctx.params.appId, moved.version, ctx.caller);
        return { status: 200, body: { status: moved.status, previousStatus: moved.previousStatus } };
      },
    },
    {
      method: 'POST',
      path: '/apps/:appId/verification',
      body: ChangeVerificationDto,
      handle: async (ctx: AdminContext<ChangeVerificationDto>) => {
        const { profile, version } = await deps.rpc.call('profile', 'apps.setVerification', ctx.caller, {
          appId: ctx.params.appId,
          status: ctx.body.status,
        });
        await settle(ctx.params.appId, version, ctx.caller);
        return { status: 200, body: profile };
      },
    },
    {
      method: 'PATCH',
      path: '/apps/:appId',
      body: UpdateAppDto,
      handle: async (ctx: AdminContext<UpdateAppDto>) => {
        const updated = await deps.rpc.call('profile', 'apps.update', ctx.caller, { appId: ctx.params.appId, dailyQuota: ctx.body.dailyQuota });
        await settle(updated.id, updated.version, ctx.caller);
        return { status: 200, body: publicApp(updated) };
      },
    },
    {
      // Message templates (architecture section 13): an operator's verdict on a live app's pending version.
      method: 'POST',
      path: '/templates/:templateId/review',
      body: ReviewTemplateDto,
      handle: async (ctx: AdminContext<ReviewTemplateDto>) => {
        const payload = { templateId: ctx.params.templateId, decision: ctx.body.decision, reason: ctx.body.reason ?? null };
        return { status: 200, body: await deps.rpc.call('messaging', 'templates.review', ctx.caller, payload) };
      },
    },
    {
      method: 'POST',
      path: '/apps/:appId/keys',
      body: CreateKeyDto,
      handle: async (ctx) => {
        await knownApp(ctx.params.appId);
        return { status: 201, body: await deps.keys.create(ctx.params.appId, ctx.body, ctx.caller) };
      },
    },
    {
      method: 'GET',
      path: '/apps/:appId/keys',
      handle: async (ctx) => {
        await knownApp(ctx.params.appId);
        return { status: 200, body: { data: await deps.keys.list(ctx.params.appId) } };
      },
    },
    {
      method: 'DELETE',
      path: '/apps/:appId/keys/:keyId',
      handle: async (ctx) => {
        await knownApp(ctx.params.appId);
        return { status: 200, body: await deps.keys.revoke(ctx.params.appId, ctx.params.keyId, ctx.caller) };
      },
    },
    {
      method: 'GET',
      path: '/apps/:appId/users/:userId',
      handle: async (ctx) => {
        await knownApp(ctx.params.appId);
        await deps.rpc.call('chat-sim', 'users.get', ctx.caller, { userId: ctx.params.userId });
        return { status: 200, body: { appUserId: appUserIdFor(deps.appUserIdSecret, ctx.params.appId, ctx.params.userId) } };
      },
    },
    {
      // Operators' bulk replay (platformctl webhooks redeliver): the very operation POST /webhook-deliveries/{id}/replay runs (D24).
      method: 'POST',
      path: '/apps/:appId/webhook-deliveries/:deliveryId/replay',
      handle: async (ctx) => {
        await knownApp(ctx.params.appId);
        return {
          status: 202,
          body: await deps.rpc.call('webhooks', 'deliveries.replay', ctx.caller, { appId: ctx.params.appId, deliveryId: ctx.params.deliveryId }),
        };
      },
    },
    ...audienceRoutes({ rpc: deps.rpc, apps: deps.apps, appUserIdSecret: deps.appUserIdSecret, settle: platform }),
    ...mailRoutes(deps.mailSinkUrl),
  ];

  // architecture section 7: the clock routes exist only with CLOCK_MODE=test; elsewhere they are route_not_found.
  const testClock = deps.testClock;
  if (testClock) {
    routes.push(
      { method: 'GET', path: '/clock', handle: async () => ({ status: 200, body: { now: deps.clock.now().toISOString() } }) },
      {
        method: 'POST',
        path: '/clock/advance',
        body: AdvanceClockDto,
        handle: async (ctx) => ({ status: 200, body: await testClock.advance(ctx.body.seconds, ctx.caller, SERVICES_THE_GATEWAY_CALLS) }),
      },
    );
  }
  return routes;
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  if (await pollUntil(check, 10_000)) return;
  throw new DomainError('internal_error', 'The change was made but has not reached every service yet; retry the read.');
}
