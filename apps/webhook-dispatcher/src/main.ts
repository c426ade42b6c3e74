import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { loadBaseConfig, runMain, ServiceKitModule, ServiceRuntime, startNestService } from '@platform/service-kit';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';
import { webhookDispatcherMigrations } from './persistence/migrations';

export async function startWebhookDispatcher(env: NodeJS.ProcessEnv = process.env) {
  const config = loadBaseConfig('webhook-dispatcher', 'webhook_dispatcher', 3050, env);
  const runtime = new ServiceRuntime({
    config,
    entities: [],
    migrations: webhookDispatcherMigrations,
    outboxRoute: (event) => ({ topic: TOPICS.webhooksEvents, key: event.appId ?? event.streamId, aggregateType: event.streamId.split('-', 1)[0] }),
  });
  await runtime.init();
  const app = await startNestService({
    runtime,
    module: { module: WebhookDispatcherModule, imports: [ServiceKitModule.forRoot(runtime, 'webhooks')] },
    rpcService: 'webhooks',
    port: config.port,
  });
  return {
    runtime,
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

if (require.main === module) runMain(startWebhookDispatcher);
