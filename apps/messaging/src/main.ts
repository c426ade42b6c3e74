import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { routeByApp, runMain, startService } from '@platform/service-kit';
import { MessagingModule } from './messaging.module';
import { messagingMigrations } from './persistence/migrations';

export function startMessaging(env: NodeJS.ProcessEnv = process.env) {
  return startService(
    {
      name: 'messaging',
      schema: 'messaging',
      defaultPort: 3010,
      rpcService: 'messaging',
      entities: [],
      migrations: messagingMigrations,
      outboxRoute: routeByApp(() => TOPICS.messagingEvents),
      module: MessagingModule,
    },
    env,
  );
}

if (require.main === module) runMain(startMessaging);
