import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { routeByApp, runMain, startService } from '@platform/service-kit';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';
import { webhookDispatcherMigrations } from './persistence/migrations';

export function startWebhookDispatcher(env: NodeJS.ProcessEnv = process.env) {
  return startService(
    {
      name: 'webhook-dispatcher',
      schema: 'webhook_dispatcher',
      defaultPort: 3050,
      rpcService: 'webhooks',
      entities: [],
      migrations: webhookDispatcherMigrations,
      outboxRoute: routeByApp(() => TOPICS.webhooksEvents),
      module: WebhookDispatcherModule,
    },
    env,
  );
}

if (require.main === module) runMain(startWebhookDispatcher);
