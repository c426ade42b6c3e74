import 'reflect-metadata';
import { TOPICS } from '@platform/contracts';
import { loadBaseConfig, runMain, ServiceKitModule, ServiceRuntime, startNestService } from '@platform/service-kit';
import { orgsConsumer } from './orgs/orgs.projection';
import { AppView } from './persistence/app-view.entity';
import { profileMigrations } from './persistence/migrations';
import { OrgView } from './persistence/org-view.entity';
import { ProfileModule } from './profile.module';

export async function startProfile(env: NodeJS.ProcessEnv = process.env) {
  const config = loadBaseConfig('profile', 'profile', 3040, env);
  const runtime = new ServiceRuntime({
    config,
    entities: [AppView, OrgView],
    migrations: profileMigrations,
    outboxRoute: (event) => ({ topic: TOPICS.profileEvents, key: event.appId ?? event.streamId, aggregateType: 'app' }),
  });
  await runtime.init();
  await runtime.consume(orgsConsumer);
  const app = await startNestService({
    runtime,
    module: { module: ProfileModule, imports: [ServiceKitModule.forRoot(runtime, 'profile')] },
    rpcService: 'profile',
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

if (require.main === module) runMain(startProfile);
