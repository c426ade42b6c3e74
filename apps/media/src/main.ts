import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { routeByApp, runMain, startService } from '@platform/service-kit';
import { MediaModule } from './media.module';
import { mediaMigrations } from './persistence/migrations';

export function startMedia(env: NodeJS.ProcessEnv = process.env) {
  return startService(
    {
      name: 'media',
      schema: 'media',
      defaultPort: 3030,
      rpcService: 'media',
      entities: [],
      migrations: mediaMigrations,
      outboxRoute: routeByApp(() => TOPICS.mediaEvents),
      module: MediaModule,
    },
    env,
  );
}

if (require.main === module) runMain(startMedia);
