import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { routeByApp, runMain, startService } from '@platform/service-kit';
import { ConsentModule } from './consent.module';
import { consentMigrations } from './persistence/migrations';

export function startConsent(env: NodeJS.ProcessEnv = process.env) {
  return startService(
    {
      name: 'consent',
      schema: 'consent',
      defaultPort: 3020,
      rpcService: 'consent',
      entities: [],
      migrations: consentMigrations,
      outboxRoute: routeByApp(() => TOPICS.consentEvents),
      module: ConsentModule,
    },
    env,
  );
}

if (require.main === module) runMain(startConsent);
