import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '@platform/contracts';
import type { OutboxRoute } from '@platform/event-store';
import { runMain, startService } from '@platform/service-kit';
import { ChatSimModule } from './chat-sim.module';
import { chatSimMigrations } from './persistence/migrations';
import { OrgView } from './persistence/org-view.entity';
import { UserView } from './persistence/user-view.entity';

/** Org events are keyed by orgId, user events by userId, so each aggregate's events stay in order. */
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
      return null;
  }
}

export function startChatSim(env: NodeJS.ProcessEnv = process.env) {
  return startService(
    {
      name: 'chat-sim',
      schema: 'chat_sim',
      defaultPort: 3060,
      rpcService: 'chat-sim',
      entities: [OrgView, UserView],
      migrations: chatSimMigrations,
      outboxRoute: chatSimOutboxRoute,
      module: ChatSimModule,
    },
    env,
  );
}

if (require.main === module) runMain(startChatSim);
