// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '#platform/contracts';
import type { OutboxRoute } from '#platform/event-store';
import { runMain, startService, type ServiceDefinition } from '#platform/service-kit';
import { ChatSimModule } from './chat-sim.module';
import { chatSimMigrations } from './persistence/migrations';
import { OrgView } from './persistence/org-view.entity';
import { InboxMessageView } from './persistence/inbox-message.entity';
import { UserView } from './persistence/user-view.entity';
import { handoverConsumer } from './relationships/handover.consumer';

/** Org events are keyed by orgId; user events and users' actions by userId, so each user's events stay in order. */
export function chatSimOutboxRoute(event: DomainEvent): OutboxRoute | null {
  const data = event.data as { orgId?: string; userId?: string };
  switch (event.type) {
    case 'OrgCreated':
    case 'OrgUpdated':
      return { topic: TOPICS.chatUserEvents, key: data.orgId as string, aggregateType: 'org' };
    case 'UserCreated':
    case 'UserStatusChanged':
      return { topic: TOPICS.chatUserEvents, key: data.userId as string, aggregateType: 'user' };
    default:
      // Every user action towards an app: keyed by the user, so a user's actions stay in order.
      return event.streamId.startsWith('relationship-') ? { topic: TOPICS.chatUserEvents, key: data.userId as string, aggregateType: 'relationship' } : null;
  }
}

export const chatSimService: ServiceDefinition = {
  name: 'chat-sim',
  schema: 'chat_sim',
  defaultPort: 3060,
  rpcService: 'chat-sim',
  entities: [OrgView, UserView, InboxMessageView],
  migrations: chatSimMigrations,
  outboxRoute: chatSimOutboxRoute,
  consumers: (runtime) => [handoverConsumer(runtime)],
  module: ChatSimModule,
};

export function startChatSim(env: NodeJS.ProcessEnv = process.env) {
  return startService(chatSimService, env);
}

if (require.main === module) runMain(startChatSim);
