// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { TOPICS } from '#platform/contracts';
import { routeByApp, runMain, startService, type ServiceDefinition } from '#platform/service-kit';
import { orgsConsumer } from './orgs/orgs.projection';
import { AppView } from './persistence/app-view.entity';
import { profileMigrations } from './persistence/migrations';
import { OrgView } from './persistence/org-view.entity';
import { ProfileModule } from './profile.module';

/** Profile events go to profile.events keyed by app. */
export const profileOutboxRoute = routeByApp(() => TOPICS.profileEvents);

export const profileService: ServiceDefinition = {
  name: 'profile',
  schema: 'profile',
  defaultPort: 3040,
  rpcService: 'profile',
  entities: [AppView, OrgView],
  migrations: profileMigrations,
  outboxRoute: profileOutboxRoute,
  consumers: [orgsConsumer],
  module: ProfileModule,
};

export function startProfile(env: NodeJS.ProcessEnv = process.env) {
  return startService(profileService, env);
}

if (require.main === module) runMain(startProfile);
