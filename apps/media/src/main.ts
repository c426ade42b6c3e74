// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '#platform/contracts';
import type { OutboxRoute } from '#platform/event-store';
import { runMain, startService, type ServiceDefinition, type ServiceStartOptions } from '#platform/service-kit';
import { userMediaConsumer } from './inbound/user-media.consumer';
import { MediaModule } from './media.module';
import { mediaMigrations } from './persistence/migrations';

/** Media events go to media.events keyed by mediaId (architecture section 2): one file's events stay in order. */
export function mediaOutboxRoute(event: DomainEvent): OutboxRoute {
  return { topic: TOPICS.mediaEvents, key: (event.data as { mediaId: string }).mediaId, aggregateType: 'media' };
}

export const mediaService: ServiceDefinition = {
  name: 'media',
  schema: 'media',
  defaultPort: 3030,
  rpcService: 'media',
  entities: [],
  migrations: mediaMigrations,
  outboxRoute: mediaOutboxRoute,
  consumers: (runtime) => [userMediaConsumer(runtime)],
  module: MediaModule,
};

export function startMedia(env: NodeJS.ProcessEnv = process.env, options: ServiceStartOptions = {}) {
  return startService(mediaService, env, options);
}

if (require.main === module) runMain(startMedia);
