import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { loadBaseConfig, runMain, ServiceKitModule, ServiceRuntime, startNestService } from '@platform/service-kit';
import { MediaModule } from './media.module';
import { mediaMigrations } from './persistence/migrations';

export async function startMedia(env: NodeJS.ProcessEnv = process.env) {
  const config = loadBaseConfig('media', 'media', 3030, env);
  const runtime = new ServiceRuntime({
    config,
    entities: [],
    migrations: mediaMigrations,
    outboxRoute: (event) => ({ topic: TOPICS.mediaEvents, key: event.appId ?? event.streamId, aggregateType: event.streamId.split('-', 1)[0] }),
  });
  await runtime.init();
  const app = await startNestService({
    runtime,
    module: { module: MediaModule, imports: [ServiceKitModule.forRoot(runtime, 'media')] },
    rpcService: 'media',
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

if (require.main === module) runMain(startMedia);
