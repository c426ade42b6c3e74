import { Module, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { RpcClient } from '#platform/kafka';
import { ServiceRuntime } from '#platform/service-kit';
import { AuditTrail } from './audit/audit-trail';
import { MembersHandler } from './members/members.handler';
import { ConsoleRetentionPruner } from './retention/console-retention.pruner';
import { SignInHandler } from './sign-in/sign-in.handler';
import { SignInRequestsWorker } from './sign-in/sign-in-requests.worker';
import { AccessRefusedFilter } from './web/access-refused.filter';
import { ApiKeysController } from './web/api-keys.controller';
import { AppMemberGuard } from './web/app-member.guard';
import { AppDataController } from './web/app-data.controller';
import { BusinessProfileController } from './web/business-profile.controller';
import { ChangeGuard } from './web/change.guard';
import { ConsoleController } from './web/console.controller';
import { CONSOLE_SETTINGS, ConsoleWeb, type ConsoleWebSettings } from './web/console-web';
import { DomainErrorPageFilter } from './web/domain-error.filter';
import { EventsController } from './web/events.controller';
import { FormBodyInterceptor } from './web/form-body.interceptor';
import { UnexpectedErrorPageFilter } from './web/unexpected-error.filter';
import { InvitationLinkController } from './web/invitation-link.controller';
import { MembersController } from './web/members.controller';
import { RequestLogController } from './web/request-log.controller';
import { TemplatesController } from './web/templates.controller';
import { WebhookDeliveriesController } from './web/webhook-deliveries.controller';
import { WebhooksController } from './web/webhooks.controller';

export interface ConsoleModuleSettings extends ConsoleWebSettings {
  mailFrom: string;
  /** Calls to the services that own what the console changes or shows (keys, the request log, webhook endpoints and deliveries, links, profile). */
  rpc: RpcClient;
}

/** The console's pages and the handlers behind them, with the settings they read. */
export function consoleModule(settings: ConsoleModuleSettings): Type<unknown> {
  @Module({
    controllers: [
      ConsoleController,
      MembersController,
      InvitationLinkController,
      ApiKeysController,
      WebhooksController,
      WebhookDeliveriesController,
      AppDataController,
      BusinessProfileController,
      RequestLogController,
      TemplatesController,
      EventsController,
    ],
    providers: [
      { provide: CONSOLE_SETTINGS, useValue: settings },
      { provide: RpcClient, useValue: settings.rpc },
      ConsoleWeb,
      AuditTrail,
      ConsoleRetentionPruner,
      // Every change is checked from its head (session, CSRF token), then every page of an app for its
      // membership, before a body is read; then its form is read. Guards run in this order.
      { provide: APP_GUARD, useClass: ChangeGuard },
      { provide: APP_GUARD, useClass: AppMemberGuard },
      { provide: APP_INTERCEPTOR, useClass: FormBodyInterceptor },
      // Filters registered later are tried first: refusals, then anything else.
      { provide: APP_FILTER, useClass: UnexpectedErrorPageFilter },
      { provide: APP_FILTER, useClass: DomainErrorPageFilter },
      { provide: APP_FILTER, useClass: AccessRefusedFilter },
      { provide: SignInRequestsWorker, useFactory: (runtime: ServiceRuntime) => new SignInRequestsWorker(runtime, settings), inject: [ServiceRuntime] },
      {
        provide: SignInHandler,
        useFactory: (runtime: ServiceRuntime, requests: SignInRequestsWorker) => new SignInHandler(runtime, requests),
        inject: [ServiceRuntime, SignInRequestsWorker],
      },
      { provide: MembersHandler, useFactory: (runtime: ServiceRuntime) => new MembersHandler(runtime, settings), inject: [ServiceRuntime] },
    ],
  })
  class ConsoleModule {}
  return ConsoleModule;
}
