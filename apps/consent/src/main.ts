import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { loadBaseConfig, runMain, ServiceKitModule, ServiceRuntime, startNestService } from '@platform/service-kit';
import { ConsentModule } from './consent.module';
import { consentMigrations } from './persistence/migrations';

export async function startConsent(env: NodeJS.ProcessEnv = process.env) {
  const config = loadBaseConfig('consent', 'consent', 3020, env);
  const runtime = new ServiceRuntime({
    config,
    entities: [],
    migrations: consentMigrations,
    outboxRoute: (event) => ({ topic: TOPICS.consentEvents, key: event.appId ?? event.streamId, aggregateType: event.streamId.split('-', 1)[0] }),
  });
  await runtime.init();
  const app = await startNestService({
    runtime,
    module: { module: ConsentModule, imports: [ServiceKitModule.forRoot(runtime, 'consent')] },
    rpcService: 'consent',
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

if (require.main === module) runMain(startConsent);
