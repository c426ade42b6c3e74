// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '#platform/contracts';
import type { OutboxRoute } from '#platform/event-store';
import { runMain, startService, type ServiceDefinition, type ServiceStartOptions } from '#platform/service-kit';
import { appsConsumer } from './apps/apps.projection';
import { loadConsentConfig } from './consent.config';
import { ConsentModule } from './consent.module';
import { AppView } from './persistence/app-view.entity';
import { ConsentView } from './persistence/consent-view.entity';
import { consentMigrations } from './persistence/migrations';
import { userActionsConsumer } from './user-actions/user-actions.consumer';

/** Consent events are keyed `appId:appUserId` (one user's moves stay in order); link opens stay private. */
export function consentOutboxRoute(event: DomainEvent): OutboxRoute | null {
  if (event.type === 'OptInLinkOpenRecorded') return null;
  const { appUserId } = event.data as { appUserId: string };
  return { topic: TOPICS.consentEvents, key: `${event.appId}:${appUserId}`, aggregateType: 'consent' };
}

export const consentService: ServiceDefinition = {
  name: 'consent',
  schema: 'consent',
  defaultPort: 3020,
  rpcService: 'consent',
  entities: [ConsentView, AppView],
  migrations: consentMigrations,
  outboxRoute: consentOutboxRoute,
  consumers: (runtime) => [userActionsConsumer(runtime, loadConsentConfig(runtime.config)), appsConsumer],
  module: ConsentModule,
};

export function startConsent(env: NodeJS.ProcessEnv = process.env, options: ServiceStartOptions = {}) {
  return startService(consentService, env, options);
}

if (require.main === module) runMain(startConsent);
