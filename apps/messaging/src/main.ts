import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { loadBaseConfig, runMain, ServiceKitModule, ServiceRuntime, startNestService } from '@platform/service-kit';
import { MessagingModule } from './messaging.module';
import { messagingMigrations } from './persistence/migrations';

export async function startMessaging(env: NodeJS.ProcessEnv = process.env) {
  const config = loadBaseConfig('messaging', 'messaging', 3010, env);
  const runtime = new ServiceRuntime({
    config,
    entities: [],
    migrations: messagingMigrations,
    outboxRoute: (event) => ({ topic: TOPICS.messagingEvents, key: event.appId ?? event.streamId, aggregateType: event.streamId.split('-', 1)[0] }),
  });
  await runtime.init();
  const app = await startNestService({
    runtime,
    module: { module: MessagingModule, imports: [ServiceKitModule.forRoot(runtime, 'messaging')] },
    rpcService: 'messaging',
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

if (require.main === module) runMain(startMessaging);
